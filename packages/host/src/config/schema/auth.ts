const authProviderConfig = {
  title: 'AuthProviderConfig',
  description: 'One auth provider, keyed by its id (e.g. `crm-auth-provider`).',
  type: 'object',
  additionalProperties: false,
  properties: {
    token: {
      type: 'string',
      description: 'A static access token for every user (private-app token, personal access token).',
      'x-env': '<PROVIDER_ID>_TOKEN',
    },
    clientId: {
      type: 'string',
      minLength: 1,
      description: 'OAuth client id; enables the per-user authorization flow.',
      'x-env': '<PROVIDER_ID>_CLIENT_ID',
    },
    clientSecret: {
      type: 'string',
      description: 'OAuth client secret (better from the environment or the secrets file).',
      'x-env': '<PROVIDER_ID>_CLIENT_SECRET',
    },
    redirectUri: {
      type: 'string',
      format: 'uri',
      description:
        'Redirect URI registered with the vendor; by default `<http.publicUrl>/oauth/callback/<provider id>`.',
    },
    authorizeUrl: {
      type: 'string',
      format: 'uri',
      description: "The vendor's authorization endpoint, where it differs from the plugin's.",
    },
    tokenUrl: {
      type: 'string',
      format: 'uri',
      description: "The vendor's token endpoint, where it differs from the plugin's.",
    },
    revokeUrl: {
      type: 'string',
      format: 'uri',
      description:
        "The vendor's token revocation endpoint (RFC 7009); by default the plugin's, where it declares one.",
    },
    account: {
      type: 'object',
      additionalProperties: false,
      required: ['via', 'url', 'fields'],
      description:
        "How to read which vendor account a token acts for, shown on the connections page: `bearer` (a GET with the token) or `introspection` (RFC 7662), and the answer's fields that name the account. By default the plugin's, unless `tokenUrl` points elsewhere.",
      properties: {
        via: { enum: ['bearer', 'introspection'] },
        url: { type: 'string', format: 'uri' },
        fields: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
      },
    },
    clientAuth: {
      enum: ['basic', 'post'],
      description:
        "How the client authenticates at the token endpoint (HTTP Basic, or id and secret in the form body); by default the plugin's choice.",
    },
    scopes: {
      type: 'array',
      items: { type: 'string' },
      description: 'Scopes requested in every authorization, besides the ones a tool needs.',
    },
  },
} as const;

/** `auth`: auth providers and where OAuth tokens are kept. */
export const authSection = {
  type: 'object',
  additionalProperties: false,
  description: 'Auth providers and where OAuth tokens are kept.',
  properties: {
    dataDir: {
      type: 'string',
      description:
        'Directory of the encrypted token file and write-safety records (with TOOLHOST_TOKEN_KEY), relative to the config file.',
      default: '.toolhost-data',
      'x-env': 'TOOLHOST_DATA_DIR',
    },
    providers: {
      type: 'object',
      additionalProperties: authProviderConfig,
      description: 'Auth providers by id (e.g. `crm-auth-provider`, `grid-auth-provider`).',
    },
    tokenRequestTimeoutSeconds: {
      type: 'integer',
      minimum: 1,
      maximum: 120,
      description:
        "Deadline of each code exchange and revocation at a provider's endpoints, and how long a call waits for a token refresh before it is answered a retryable `upstream_unavailable` (the refresh itself is never cut short: it goes on under its lock, and the next call joins it), in seconds; kept below `refreshLockSeconds`.",
      default: 10,
    },
    refreshLockSeconds: {
      type: 'integer',
      minimum: 5,
      maximum: 600,
      description:
        'With Redis: how long the one-refresh-at-a-time lock outlives a replica that stopped extending it (extended while its refresh runs), in seconds.',
      default: 30,
    },
    refreshSkewSeconds: {
      type: 'integer',
      minimum: 0,
      maximum: 3600,
      description: 'Refresh an access token this long before it expires, in seconds.',
      default: 60,
    },
  },
} as const;
