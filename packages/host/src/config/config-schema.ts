import { ENGINE_DEFAULTS } from '@toolhost/engine';
import { JWT_ALGORITHMS } from '../auth/front-door/jwt-algorithms.js';

/*
 * The one source of the host's configuration: this schema validates config files and
 * embedders' objects (naming the offending key), its `default`s fill what a config leaves out
 * (config-defaults.ts), and scripts/generate-config-reference.mjs turns it into the TypeScript
 * types (host-config.generated.ts) and the configuration reference (docs/configuration.md), which CI checks
 * are current. `x-env` and `x-flag` name the environment variable and CLI flag that set a key
 * over the file; they are documentation (the validator ignores unknown keywords).
 */

const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;
const globs = { type: 'array', items: { type: 'string' } } as const;
const names = { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true } as const;

const toolSetConfig = {
  title: 'ToolSetConfig',
  description: 'Settings of one tool set, keyed by its name (e.g. `CrmEventsApi`).',
  type: 'object',
  additionalProperties: false,
  properties: {
    enabled: { type: 'boolean', description: 'false hides every tool of the set.', default: true },
    baseUrl: {
      type: 'string',
      format: 'uri',
      description: "Base URL of the set's default server: a proxy, a regional endpoint, a test server.",
    },
    baseUrls: {
      type: 'object',
      additionalProperties: { type: 'string', format: 'uri' },
      description: "Base URLs per server key (e.g. GridApi's `scim`, `content`).",
    },
    settings: {
      type: 'object',
      description:
        "Plugin-specific settings, checked against the plugin's settings schema (e.g. CdpPipelinesApi `region`).",
    },
    pacing: {
      description:
        "Another request rate than the plugin's (GridApi: 5 a second per base; each HubSpot tool set: 9 a second per connection, shared by the three), or false where something else paces.",
      oneOf: [
        { const: false },
        {
          type: 'object',
          additionalProperties: false,
          required: ['requestsPerSecond'],
          properties: { requestsPerSecond: { type: 'number', exclusiveMinimum: 0, maximum: 10_000 } },
        },
      ],
    },
  },
} as const;

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

export const hostConfigSchema = {
  title: 'HostConfig',
  description: "The host's configuration, as a file (JSON or YAML) or an object passed by an embedder.",
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string', description: 'Editor hint; ignored.' },
    plugins: {
      ...names,
      description: 'Plugin packages (names or paths) to load. By default every installed toolhost plugin.',
      'x-env': 'TOOLHOST_PLUGINS',
      'x-flag': '--plugins',
    },
    toolSets: {
      type: 'object',
      additionalProperties: toolSetConfig,
      description: 'Per-tool-set settings, keyed by tool set name.',
    },
    tools: {
      type: 'object',
      additionalProperties: false,
      description: 'Which tools are exposed.',
      properties: {
        toolSets: {
          ...names,
          description: 'Expose only these tool sets; by default every loaded one.',
          'x-env': 'TOOLHOST_TOOL_SETS',
          'x-flag': '--tool-sets',
        },
        allow: {
          ...globs,
          description: 'Globs on canonical names (`CrmEventsApi.*`); by default every tool.',
          'x-env': 'TOOLHOST_ALLOW',
          'x-flag': '--allow',
        },
        deny: {
          ...globs,
          description: 'Globs on canonical names, applied after `allow`.',
          'x-env': 'TOOLHOST_DENY',
          'x-flag': '--deny',
        },
        readOnly: {
          type: 'boolean',
          description: 'Expose only tools that change nothing upstream.',
          default: false,
          'x-env': 'TOOLHOST_READ_ONLY',
          'x-flag': '--read-only',
        },
        confirmWrites: {
          type: 'boolean',
          description:
            'Ask the person (MCP form elicitation, showing the exact request) before any tool that is not read-only sends; a client that cannot be asked gets `confirmation_required` with a preview to apply.',
          default: false,
          'x-env': 'TOOLHOST_CONFIRM_WRITES',
          'x-flag': '--confirm-writes',
        },
        previewTtlSeconds: {
          type: 'integer',
          minimum: 1,
          maximum: 86400,
          description: 'How long a write preview (`preview_tool_call`) can be applied, in seconds.',
          default: 600,
        },
        previewsPerUser: {
          type: 'integer',
          minimum: 1,
          maximum: 100000,
          description:
            'How many unexpired write previews one user may hold on a host, or across all replicas sharing a Redis store; one more is refused, naming this setting.',
          default: 100,
        },
        idempotencyKeysPerUser: {
          type: 'integer',
          minimum: 1,
          maximum: 1000000,
          description:
            'How many idempotency keys holding outcomes one user may have on a host, or across all replicas sharing a Redis store; one more is refused, naming this setting. Writes confirmed on MCP 2026-07-28 (whose outcomes answer a retry of their confirmation for 10 minutes) are bounded alike, counted apart.',
          default: 1000,
        },
        idempotencyTtlSeconds: {
          type: 'integer',
          minimum: 1,
          maximum: 2592000,
          description:
            'How long an idempotency key answers its first outcome instead of sending again, in seconds.',
          default: 86400,
        },
        idempotencyClaimSeconds: {
          type: 'integer',
          minimum: 1,
          maximum: 600,
          description:
            "With Redis: how long an idempotency key's (or a 2026-07-28 confirmation's) claim outlives a replica that stopped renewing it (it renews every third of this while its call runs), in seconds. A retry then answers `idempotency_outcome_unknown` (`confirmation_outcome_unknown`) instead of waiting.",
          default: 10,
        },
        idempotencyWaitSeconds: {
          type: 'integer',
          minimum: 0,
          maximum: 600,
          description:
            'How long a call waits for the same key (or 2026-07-28 confirmation) still running elsewhere before answering `idempotency_in_progress` (`confirmation_in_progress`; retryable), in seconds.',
          default: 10,
        },
      },
    },
    auth: {
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
    },
    secrets: {
      ...stringMap,
      description: 'Named secrets such as `CDP_API_KEY`; an environment variable of the same name wins.',
    },
    secretsFile: {
      type: 'string',
      description: 'A JSON file of named secrets (`{"CDP_API_KEY": "..."}`), relative to the config file.',
    },
    engine: {
      type: 'object',
      additionalProperties: false,
      description: 'Limits on upstream requests.',
      properties: {
        timeoutMs: {
          type: 'integer',
          minimum: 1,
          maximum: 3_600_000,
          description:
            'Per upstream request, in ms: the whole exchange, from sending to the last byte of the answer; a request also waits at most this long for a slot.',
          default: ENGINE_DEFAULTS.timeoutMs,
        },
        maxResponseBytes: {
          type: 'integer',
          minimum: 1024,
          maximum: 1024 * 1024 * 1024,
          description: 'Largest upstream response accepted, in bytes.',
          default: ENGINE_DEFAULTS.maxResponseBytes,
        },
        maxConcurrentRequests: {
          type: 'integer',
          minimum: 1,
          maximum: 10_000,
          description: 'Upstream requests in flight at once across all tools; the rest queue.',
          default: ENGINE_DEFAULTS.maxConcurrentRequests,
        },
        maxConcurrentRequestsPerUpstream: {
          type: 'integer',
          minimum: 1,
          maximum: 10_000,
          description: `Upstream requests in flight at once to one upstream origin, so that a slow upstream cannot take every slot. Unset: ${ENGINE_DEFAULTS.maxConcurrentRequestsPerUpstream} where the tool sets reach more than one origin, and maxConcurrentRequests where they all reach one (no other upstream to keep slots for).`,
        },
        maxRateLimitWaitSeconds: {
          type: 'number',
          minimum: 0,
          maximum: 3600,
          description:
            'Longest Retry-After honoured for one retry after a 429; longer waits return the error.',
          default: ENGINE_DEFAULTS.maxRateLimitWaitSeconds,
        },
        retry: {
          type: 'object',
          additionalProperties: false,
          description:
            'Retries of network errors and 5xx, only where safe (idempotent tools, or a request that never left), with exponential backoff and full jitter.',
          properties: {
            maxAttempts: {
              type: 'integer',
              minimum: 1,
              maximum: 10,
              description: 'Attempts in all, the first included.',
              default: ENGINE_DEFAULTS.retry.maxAttempts,
            },
            baseDelayMs: {
              type: 'integer',
              minimum: 0,
              maximum: 60_000,
              description: 'Backoff before the first retry, doubled for each further one.',
              default: ENGINE_DEFAULTS.retry.baseDelayMs,
            },
            maxDelayMs: {
              type: 'integer',
              minimum: 0,
              maximum: 600_000,
              description: 'Longest backoff between two attempts.',
              default: ENGINE_DEFAULTS.retry.maxDelayMs,
            },
          },
        },
      },
    },
    mcp: {
      type: 'object',
      additionalProperties: false,
      description: 'How tools are presented over MCP.',
      properties: {
        nameSeparator: {
          type: 'string',
          pattern: '^[A-Za-z0-9_.-]{1,3}$',
          description: 'Separator between tool set and tool in MCP tool names (`CrmEventsApi_SendEvent`).',
          default: '_',
        },
        catalog: {
          enum: ['auto', 'static', 'dynamic'],
          description:
            "`static` lists every tool; `dynamic` lists `search_tools`, `describe_tools` and `call_tool`, for clients that cannot hold the whole catalog; `auto` is `static` up to 100 listed tools and `dynamic` above (OpenAI and VS Code take at most 128 tools per request, shared with the client's own).",
          default: 'auto',
          'x-env': 'TOOLHOST_CATALOG',
          'x-flag': '--catalog',
        },
        maxResultBytes: {
          type: 'integer',
          minimum: 4096,
          maximum: 64 * 1024 * 1024,
          description:
            'Largest tool result text in bytes (about 20,000 tokens by default); a larger result comes back as a summary with a resource link to the whole result.',
          default: 80_000,
        },
        resultTtlSeconds: {
          type: 'integer',
          minimum: 1,
          maximum: 86_400,
          description: 'How long such a whole result stays readable, in seconds.',
          default: 900,
        },
      },
    },
    http: {
      type: 'object',
      additionalProperties: false,
      description: 'The Streamable HTTP server (`serve --http`) and the OAuth pages.',
      properties: {
        host: {
          type: 'string',
          description: 'Address to bind; binding beyond loopback needs access tokens.',
          default: '127.0.0.1',
        },
        port: {
          type: 'integer',
          minimum: 0,
          maximum: 65535,
          description: 'Port to listen on (0: any free port).',
          default: 3333,
          'x-env': 'TOOLHOST_PORT',
          'x-flag': '--http [port]',
        },
        path: {
          type: 'string',
          pattern: '^/',
          description: 'Path of the MCP endpoint.',
          default: '/mcp',
        },
        publicUrl: {
          type: 'string',
          format: 'uri',
          description:
            "The URL users' browsers reach this host at (OAuth redirects behind a proxy); required for OAuth on a wildcard bind.",
        },
        accessTokens: {
          type: 'object',
          additionalProperties: { type: 'string', minLength: 16 },
          description:
            'Bearer tokens the operator issues to MCP clients, by user id (`{"alice": "<token>"}`); required to bind beyond loopback.',
          'x-env': 'TOOLHOST_ACCESS_TOKENS (alice:<token>,bob:<token>)',
        },
        authorization: {
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
                          description:
                            'Only people whose verified email is at one of these domains may sign in.',
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
                  description:
                    'Clients may be named by the https URL of their metadata document (default true).',
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
                  description:
                    "The client's secret, for a confidential client (better from the environment).",
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
        },
        operators: {
          ...names,
          description:
            "Users (by id) who see and end every user's connections at /connections; others see their own.",
        },
        maxSessionsPerUser: {
          type: 'integer',
          minimum: 1,
          maximum: 10_000,
          description:
            'Open MCP sessions per user (per user and client name without access tokens); at the cap the least recently used idle one is closed.',
          default: 16,
        },
        maxSessions: {
          type: 'integer',
          minimum: 1,
          maximum: 1_000_000,
          description: 'Open MCP sessions in all; at the cap the least recently used idle one is closed.',
          default: 1000,
        },
        sessionIdleSeconds: {
          type: 'integer',
          minimum: 1,
          maximum: 604_800,
          description: 'Sessions idle this long are closed.',
          default: 1800,
        },
        allowedOrigins: {
          type: 'array',
          items: { type: 'string' },
          description: 'Browser origins allowed to call the MCP endpoint, besides loopback ones.',
        },
        allowedHosts: {
          type: 'array',
          items: { type: 'string', minLength: 1 },
          description:
            "Host header values answered besides the bound address and publicUrl's host (e.g. `mcp.example.com`).",
        },
        metricsToken: {
          type: 'string',
          minLength: 16,
          description:
            'A bearer token of its own for `GET /metrics` (a Prometheus scraper), besides the access tokens of `http.operators`; no other user may read the metrics.',
          'x-env': 'TOOLHOST_METRICS_TOKEN',
        },
        maxBodyBytes: {
          type: 'integer',
          minimum: 1024,
          maximum: 256 * 1024 * 1024,
          description: 'Largest request body accepted, in bytes.',
          default: 4 * 1024 * 1024,
        },
        keepAliveSeconds: {
          type: 'integer',
          minimum: 1,
          maximum: 86_400,
          description:
            "How long an idle connection is kept open for the client's next request, in seconds. Above the idle timeout of a balancer that pools connections to the host (AWS ALB and nginx: 60 s; GCP: 600 s), else the balancer reuses a connection the host is closing and answers 502 (docs/replicas.md).",
          default: 75,
        },
        headersTimeoutSeconds: {
          type: 'integer',
          minimum: 1,
          maximum: 86_500,
          description:
            "How long a request's headers may take to arrive, in seconds; above `keepAliveSeconds`. Unset: `keepAliveSeconds` + 5.",
        },
        drainDelaySeconds: {
          type: 'number',
          minimum: 0,
          maximum: 3600,
          description:
            'On SIGTERM, how long `/readyz` and `/healthz` answer 503 while requests are still served, so that a balancer stops sending before the host refuses (a Kubernetes pre-stop delay; docs/replicas.md), in seconds. Then calls in progress finish (`shutdownGraceSeconds`) and new ones are refused.',
          default: 0,
        },
      },
    },
    store: {
      type: 'object',
      additionalProperties: false,
      description: 'State shared by several host replicas behind a load balancer.',
      properties: {
        redisUrl: {
          type: 'string',
          pattern: '^rediss?://',
          description:
            'Redis (`redis://`, or `rediss://` for TLS) for OAuth tokens, the one-refresh-at-a-time lock and pacing; needs TOOLHOST_TOKEN_KEY. Unset, each host keeps its own.',
          'x-env': 'TOOLHOST_REDIS_URL',
        },
        connectTimeoutMs: {
          type: 'integer',
          minimum: 100,
          maximum: 60000,
          description: 'How long connecting to Redis may take (at start and on each reconnect), in ms.',
          default: 5000,
        },
        commandTimeoutMs: {
          type: 'integer',
          minimum: 50,
          maximum: 60000,
          description:
            'How long one Redis command may take before the call answers `store_unavailable`, in ms.',
          default: 5000,
        },
        replicaAcks: {
          type: 'integer',
          minimum: 0,
          maximum: 16,
          description:
            "Redis replicas that must hold a write that has to survive a failover (a rotated token, an idempotency key's attempt and outcome, an applied preview) before the host relies on it (`WAIT`); one that misses it is kept and written again, and a write is not sent until its attempt is held. Default 1 with `store.sentinels`, else 0 (set 1 for a Cluster with replicas). 0: no wait; a failover in the replication window (normally milliseconds) can then lose such writes.",
        },
        replicaAckTimeoutMs: {
          type: 'integer',
          minimum: 10,
          maximum: 60000,
          description:
            'How long a write waits for `store.replicaAcks` replicas, in ms; short of them, it counts as not written (retryable `store_unavailable`, or written again in the background).',
          default: 1000,
        },
        sentinels: {
          type: 'array',
          items: { type: 'string', pattern: '^[^\\s:]+:[0-9]{1,5}$' },
          minItems: 1,
          description:
            'Redis Sentinel: `host:port` of each Sentinel. The host asks them for the master of `sentinelName` and follows failovers; `redisUrl` then gives only the credentials, database and TLS.',
        },
        sentinelName: {
          type: 'string',
          minLength: 1,
          description: 'With `sentinels`: the name of the master group the Sentinels monitor.',
          default: 'mymaster',
        },
        cluster: {
          type: 'array',
          items: { type: 'string', pattern: '^[^\\s:]+:[0-9]{1,5}$' },
          minItems: 1,
          description:
            'Redis Cluster: `host:port` of some of its nodes (the host learns the rest from them and follows resharding and failovers); `redisUrl` (optional then) gives only the credentials and TLS (database 0). Not with `sentinels`.',
        },
        keyPrefix: {
          type: 'string',
          pattern: '^[A-Za-z0-9_.:-]{0,64}$',
          description:
            'Put before every Redis key and channel (e.g. `staging:`), so that several deployments can share one Redis; the same on every replica of one.',
          default: '',
        },
      },
    },
    defaultUserId: {
      type: 'string',
      minLength: 1,
      description: 'User id for calls that name none (single-user setups, stdio).',
      default: 'default',
    },
    shutdownGraceSeconds: {
      type: 'number',
      minimum: 0,
      maximum: 3600,
      description: 'Seconds in-flight calls get to finish on shutdown before they are cancelled.',
      default: 10,
    },
    audit: {
      type: 'object',
      additionalProperties: false,
      description:
        'An audit log: one JSON line per tool call and per refused request (time, replica, user, client, tool, outcome, upstream status), apart from the diagnostic logs.',
      properties: {
        log: {
          type: 'string',
          minLength: 1,
          description:
            '`stdout` (not with the stdio transport), or a file appended to, relative to the config file. Unset: no audit log.',
          'x-env': 'TOOLHOST_AUDIT_LOG',
        },
        includeArguments: {
          type: 'boolean',
          description: "Also write each call's arguments, which may hold personal data.",
          default: false,
        },
      },
    },
    telemetry: {
      type: 'object',
      additionalProperties: false,
      description: 'Traces and metrics.',
      properties: {
        userIdKey: {
          type: 'string',
          minLength: 16,
          description:
            'The secret user ids in traces are hashed under (HMAC-SHA256); by default derived from TOOLHOST_TOKEN_KEY, else random per process.',
          'x-env': 'TOOLHOST_TELEMETRY_KEY',
        },
      },
    },
    logging: {
      type: 'object',
      additionalProperties: false,
      description: 'Logs (JSON lines on stderr; pretty on a terminal).',
      properties: {
        level: {
          enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
          description: 'Least severe level written.',
          default: 'info',
          'x-env': 'TOOLHOST_LOG_LEVEL',
          'x-flag': '--log-level',
        },
      },
    },
  },
} as const;
