import { JWT_ALGORITHMS } from '@toolhost/front-door/jwt-algorithms';

/** `http.authorization`: how MCP clients sign in at the MCP endpoint. */
export const httpAuthorizationSection = {
  type: 'object',
  additionalProperties: false,
  description:
    'How MCP clients sign in at the MCP endpoint (the MCP authorization spec), besides `http.accessTokens`: the endpoint is an OAuth 2.1 protected resource whose resource is its public URL (`http.publicUrl` + `http.path`).',
  properties: {
    mode: {
      enum: ['host', 'issuer'],
      description:
        "`host`: the host's own authorization server (`http.authorization.server`) issues the tokens; `issuer`: your identity provider does.",
    },
    server: {
      type: 'object',
      additionalProperties: false,
      description:
        "The host's own authorization server (mode `host`): its issuer is `http.publicUrl` (or the bound address).",
      properties: {
        signIn: {
          type: 'object',
          additionalProperties: false,
          description: 'How a person signs in before consenting.',
          properties: {
            accessTokens: {
              type: 'boolean',
              description:
                'People may sign in with their access token from `http.accessTokens` (default true).',
            },
            localUser: {
              type: 'string',
              minLength: 1,
              description:
                'On a loopback host only: whoever reaches it is this user (single-user local mode), and only consents.',
            },
            oidc: {
              type: 'object',
              additionalProperties: false,
              required: ['issuer', 'clientId'],
              description:
                "Sign in with the team's OpenID provider (Google, Microsoft Entra ID, Okta, Keycloak…).",
              properties: {
                issuer: { type: 'string', format: 'uri', description: "The provider's issuer URL." },
                clientId: {
                  type: 'string',
                  minLength: 1,
                  description: 'The client id the provider gave this host.',
                },
                clientSecret: {
                  type: 'string',
                  minLength: 1,
                  description: 'Its client secret.',
                  'x-env': 'TOOLHOST_SIGN_IN_CLIENT_SECRET',
                },
                name: {
                  type: 'string',
                  minLength: 1,
                  description: 'The name on the "Sign in with" button.',
                },
                userClaim: {
                  type: 'string',
                  minLength: 1,
                  description:
                    "The ID token claim that is the user's id (default `email`, which must be verified; or `sub`, …).",
                },
                allowedDomains: {
                  type: 'array',
                  items: { type: 'string', minLength: 1 },
                  description: 'Only people whose verified email is at one of these domains may sign in.',
                },
                allowedUsers: {
                  type: 'array',
                  items: { type: 'string', minLength: 1 },
                  description: 'Only these users (by the claim) may sign in.',
                },
              },
            },
          },
        },
        dynamicRegistration: {
          type: 'boolean',
          description:
            'Clients may register themselves (RFC 7591), bounded per address and in all (default true).',
        },
        clientIdMetadataDocuments: {
          type: 'boolean',
          description: 'Clients may be named by the https URL of their metadata document (default true).',
        },
        trustedClients: {
          type: 'array',
          items: { type: 'string', minLength: 1 },
          description:
            'Client ids (URLs) or their hosts whose names the consent page shows as verified (e.g. `claude.ai`).',
        },
        accessTokenSeconds: {
          type: 'integer',
          minimum: 60,
          maximum: 86_400,
          description: 'Lifetime of an access token (default 600).',
        },
        refreshTokenDays: {
          type: 'integer',
          minimum: 1,
          maximum: 365,
          description: 'A grant unused this long ends; each refresh starts it again (default 30).',
        },
      },
    },
    issuer: {
      type: 'string',
      format: 'uri',
      description:
        "Mode `issuer` (the default where this is set): your identity provider's issuer URL, exactly as its tokens' `iss` (e.g. `https://login.example.com/realms/team`); its metadata names its keys.",
      'x-env': 'TOOLHOST_AUTH_ISSUER',
    },
    authorizationServers: {
      type: 'array',
      items: { type: 'string', format: 'uri' },
      minItems: 1,
      description:
        'The authorization servers the resource metadata names for clients to sign in at; by default the issuer.',
    },
    audience: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      minItems: 1,
      description:
        "The `aud` values that mean this resource (RFC 8707); by default the MCP endpoint's public URL. Entra ID: the API's Application ID URI or client id.",
      'x-env': 'TOOLHOST_AUTH_AUDIENCE (comma-separated)',
    },
    jwksUri: {
      type: 'string',
      format: 'uri',
      description: "The issuer's JWKS, where its metadata does not name it (or to use another).",
    },
    algorithms: {
      type: 'array',
      items: { enum: [...JWT_ALGORITHMS] },
      minItems: 1,
      uniqueItems: true,
      description:
        'Signing algorithms accepted for JWT access tokens (never `none` or HMAC); by default all of these.',
    },
    subjectClaim: {
      type: 'string',
      minLength: 1,
      description:
        'The token claim that names the user (the user id of every call: upstream connections, previews, idempotency keys, bounds, the audit log); e.g. `email`, `preferred_username`, `oid`.',
      default: 'sub',
      'x-env': 'TOOLHOST_AUTH_SUBJECT_CLAIM',
    },
    introspection: {
      type: 'object',
      additionalProperties: false,
      required: ['clientId'],
      description:
        "Opaque access tokens: checked at the issuer's RFC 7662 introspection endpoint, as this client, instead of as JWTs.",
      properties: {
        endpoint: {
          type: 'string',
          format: 'uri',
          description:
            "The introspection endpoint; by default the issuer's metadata's `introspection_endpoint`.",
        },
        clientId: {
          type: 'string',
          minLength: 1,
          description: "The resource's client id at the issuer.",
        },
        clientSecret: {
          type: 'string',
          minLength: 1,
          description: "The client's secret (better from the environment).",
          'x-env': 'TOOLHOST_AUTH_INTROSPECTION_SECRET',
        },
      },
    },
    pagesClient: {
      type: 'object',
      additionalProperties: false,
      required: ['clientId'],
      description:
        "Mode `issuer`: the client the host's own pages (`/connections`) sign people in as at your identity provider (authorization code with PKCE); register its redirect URI `<http.publicUrl>/connections/callback` there. Without it, `/connections` accepts static access tokens only.",
      properties: {
        clientId: {
          type: 'string',
          minLength: 1,
          description: "The pages' client id at the issuer.",
        },
        clientSecret: {
          type: 'string',
          minLength: 1,
          description: "The client's secret, for a confidential client (better from the environment).",
          'x-env': 'TOOLHOST_PAGES_CLIENT_SECRET',
        },
      },
    },
    scopes: {
      type: 'object',
      additionalProperties: false,
      description:
        "The host's scopes as your identity provider names them (`tools:read` allows reading tools, `tools:write` also writing ones). A token's scope matches the whole name or its last segment after `/` (Entra ID's `scp`).",
      properties: {
        read: { type: 'string', minLength: 1, default: 'tools:read' },
        write: { type: 'string', minLength: 1, default: 'tools:write' },
      },
    },
    cacheSeconds: {
      type: 'integer',
      minimum: 0,
      maximum: 3600,
      description:
        'How long a validated token is reused without checking it again (never past its expiry); 0 checks every request.',
      default: 60,
    },
  },
} as const;
