// Generated from src/config/config-schema.ts by scripts/generate-config-reference.mjs; do not edit.
/* eslint-disable */
/**
 * The host's configuration, as a file (JSON or YAML) or an object passed by an embedder.
 */
export interface HostConfig {
  /**
   * Editor hint; ignored.
   */
  $schema?: string;
  /**
   * Plugin packages (names or paths) to load. By default every installed toolhost plugin. A relative path starts from the config file's directory; given by TOOLHOST_PLUGINS or --plugins, from the working directory.
   */
  plugins?: string[];
  /**
   * Per-tool-set settings, keyed by tool set name.
   */
  toolSets?: {
    [k: string]: ToolSetConfig;
  };
  /**
   * Which tools are exposed.
   */
  tools?: {
    /**
     * Expose only these tool sets; by default every loaded one.
     */
    toolSets?: string[];
    /**
     * Globs on canonical names (`CrmEventsApi.*`); by default every tool.
     */
    allow?: string[];
    /**
     * Globs on canonical names, applied after `allow`.
     */
    deny?: string[];
    /**
     * Expose only tools that change nothing upstream.
     *
     * @default false
     */
    readOnly?: boolean;
    /**
     * Ask the person (MCP form elicitation, showing the exact request) before any tool that is not read-only sends; a client that cannot be asked gets `confirmation_required` with a preview to apply (a piped `toolhost call`, none: nobody can apply it).
     *
     * @default false
     */
    confirmWrites?: boolean;
    /**
     * How long a write preview (`preview_tool_call`) can be applied, in seconds.
     *
     * @default 600
     */
    previewTtlSeconds?: number;
    /**
     * How many unexpired write previews one user may hold on a host, or across all replicas sharing a Redis store; one more is refused, naming this setting.
     *
     * @default 100
     */
    previewsPerUser?: number;
    /**
     * How many idempotency keys holding outcomes one user may have on a host, or across all replicas sharing a Redis store; one more is refused, naming this setting. Writes confirmed on MCP 2026-07-28 (whose outcomes answer a retry of their confirmation for 10 minutes) are bounded alike, counted apart.
     *
     * @default 1000
     */
    idempotencyKeysPerUser?: number;
    /**
     * With Redis: bytes of previews and idempotency records a user may keep; more is refused.
     *
     * @default 16777216
     */
    writeRecordBytesPerUser?: number;
    /**
     * How long an idempotency key answers its first outcome instead of sending again, in seconds.
     *
     * @default 86400
     */
    idempotencyTtlSeconds?: number;
    /**
     * With Redis: how long an idempotency key's (or a 2026-07-28 confirmation's) claim outlives a replica that stopped renewing it (it renews every third of this while its call runs), in seconds. A retry then answers `idempotency_outcome_unknown` (`confirmation_outcome_unknown`) instead of waiting.
     *
     * @default 10
     */
    idempotencyClaimSeconds?: number;
    /**
     * How long a call waits for the same key (or 2026-07-28 confirmation) still running elsewhere before answering `idempotency_in_progress` (`confirmation_in_progress`; retryable), in seconds.
     *
     * @default 10
     */
    idempotencyWaitSeconds?: number;
  };
  /**
   * Auth providers and where OAuth tokens are kept.
   */
  auth?: {
    /**
     * Directory of the encrypted token file and write-safety records (with TOOLHOST_TOKEN_KEY), relative to the config file.
     *
     * @default ".toolhost-data"
     */
    dataDir?: string;
    /**
     * Auth providers by id (e.g. `crm-auth-provider`, `grid-auth-provider`).
     */
    providers?: {
      [k: string]: AuthProviderConfig;
    };
    /**
     * Deadline of each code exchange and revocation at a provider's endpoints, and how long a call waits for a token refresh before it is answered a retryable `upstream_unavailable` (the refresh itself is never cut short: it goes on under its lock, and the next call joins it), in seconds; kept below `refreshLockSeconds`.
     *
     * @default 10
     */
    tokenRequestTimeoutSeconds?: number;
    /**
     * With Redis: how long the one-refresh-at-a-time lock outlives a replica that stopped extending it (extended while its refresh runs), in seconds.
     *
     * @default 30
     */
    refreshLockSeconds?: number;
    /**
     * Refresh an access token this long before it expires, in seconds.
     *
     * @default 60
     */
    refreshSkewSeconds?: number;
  };
  /**
   * Named secrets such as `CDP_API_KEY`; an environment variable of the same name wins.
   */
  secrets?: {
    [k: string]: string;
  };
  /**
   * A JSON file of named secrets (`{"CDP_API_KEY": "..."}`), relative to the config file.
   */
  secretsFile?: string;
  /**
   * Limits on upstream requests.
   */
  engine?: {
    /**
     * Per upstream request, in ms: the whole exchange, from sending to the last byte of the answer; a request also waits at most this long for a slot.
     *
     * @default 30000
     */
    timeoutMs?: number;
    /**
     * Largest upstream response accepted, in bytes.
     *
     * @default 10485760
     */
    maxResponseBytes?: number;
    /**
     * Upstream requests in flight at once across all tools; the rest queue.
     *
     * @default 64
     */
    maxConcurrentRequests?: number;
    /**
     * Upstream requests in flight at once to one upstream origin, so that a slow upstream cannot take every slot. Unset: 32 where the tool sets reach more than one origin, and maxConcurrentRequests where they all reach one (no other upstream to keep slots for).
     */
    maxConcurrentRequestsPerUpstream?: number;
    /**
     * Longest Retry-After honoured for one retry after a 429; longer waits return the error.
     *
     * @default 30
     */
    maxRateLimitWaitSeconds?: number;
    /**
     * Retries of network errors and 5xx, only where safe (idempotent tools, or a request that never left), with exponential backoff and full jitter.
     */
    retry?: {
      /**
       * Attempts in all, the first included.
       *
       * @default 3
       */
      maxAttempts?: number;
      /**
       * Backoff before the first retry, doubled for each further one.
       *
       * @default 200
       */
      baseDelayMs?: number;
      /**
       * Longest backoff between two attempts.
       *
       * @default 4000
       */
      maxDelayMs?: number;
    };
  };
  /**
   * How tools are presented over MCP.
   */
  mcp?: {
    /**
     * Separator between tool set and tool in MCP tool names (`CrmEventsApi_SendEvent`).
     *
     * @default "_"
     */
    nameSeparator?: string;
    /**
     * `static` lists every tool; `dynamic` lists `search_tools`, `describe_tools` and `call_tool`, for clients that cannot hold the whole catalog; `auto` is `static` up to 100 listed tools and `dynamic` above (OpenAI and VS Code take at most 128 tools per request, shared with the client's own).
     *
     * @default "auto"
     */
    catalog?: 'auto' | 'static' | 'dynamic';
    /**
     * Largest tool result text in bytes (about 20,000 tokens by default); a larger result comes back as a summary with a resource link to the whole result.
     *
     * @default 80000
     */
    maxResultBytes?: number;
    /**
     * How long such a whole result stays readable, in seconds.
     *
     * @default 900
     */
    resultTtlSeconds?: number;
  };
  /**
   * The Streamable HTTP server (`serve --http`) and the OAuth pages.
   */
  http?: {
    /**
     * Address to bind; binding beyond loopback needs access tokens.
     *
     * @default "127.0.0.1"
     */
    host?: string;
    /**
     * Port to listen on (0: any free port).
     *
     * @default 3333
     */
    port?: number;
    /**
     * Path of the MCP endpoint.
     *
     * @default "/mcp"
     */
    path?: string;
    /**
     * The URL users' browsers reach this host at (OAuth redirects behind a proxy); required for OAuth on a wildcard bind.
     */
    publicUrl?: string;
    /**
     * Bearer tokens the operator issues to MCP clients, by user id (`{"alice": "<token>"}`); required to bind beyond loopback.
     */
    accessTokens?: {
      [k: string]: string;
    };
    /**
     * How MCP clients sign in at the MCP endpoint (the MCP authorization spec), besides `http.accessTokens`: the endpoint is an OAuth 2.1 protected resource whose resource is its public URL (`http.publicUrl` + `http.path`).
     */
    authorization?: {
      /**
       * `host`: the host's own authorization server (`http.authorization.server`) issues the tokens; `issuer`: your identity provider does.
       */
      mode?: 'host' | 'issuer';
      /**
       * The host's own authorization server (mode `host`): its issuer is `http.publicUrl` (or the bound address).
       */
      server?: {
        /**
         * How a person signs in before consenting.
         */
        signIn?: {
          /**
           * People may sign in with their access token from `http.accessTokens` (default true).
           */
          accessTokens?: boolean;
          /**
           * On a loopback host only: whoever reaches it is this user (single-user local mode), and only consents.
           */
          localUser?: string;
          /**
           * Sign in with the team's OpenID provider (Google, Microsoft Entra ID, Okta, Keycloak…).
           */
          oidc?: {
            /**
             * The provider's issuer URL.
             */
            issuer: string;
            /**
             * The client id the provider gave this host.
             */
            clientId: string;
            /**
             * Its client secret.
             */
            clientSecret?: string;
            /**
             * The name on the "Sign in with" button.
             */
            name?: string;
            /**
             * The ID token claim that is the user's id (default `email`, which must be verified; or `sub`, …).
             */
            userClaim?: string;
            /**
             * Only people whose verified email is at one of these domains may sign in.
             */
            allowedDomains?: string[];
            /**
             * Only these users (by the claim) may sign in.
             */
            allowedUsers?: string[];
          };
        };
        /**
         * Clients may register themselves (RFC 7591), bounded per address and in all (default true).
         */
        dynamicRegistration?: boolean;
        /**
         * Clients may be named by the https URL of their metadata document (default true).
         */
        clientIdMetadataDocuments?: boolean;
        /**
         * Client ids (URLs) or their hosts whose names the consent page shows as verified (e.g. `claude.ai`).
         */
        trustedClients?: string[];
        /**
         * Lifetime of an access token (default 600).
         */
        accessTokenSeconds?: number;
        /**
         * A grant unused this long ends; each refresh starts it again (default 30).
         */
        refreshTokenDays?: number;
      };
      /**
       * Mode `issuer` (the default where this is set): your identity provider's issuer URL, exactly as its tokens' `iss` (e.g. `https://login.example.com/realms/team`); its metadata names its keys.
       */
      issuer?: string;
      /**
       * The authorization servers the resource metadata names for clients to sign in at; by default the issuer.
       *
       * @minItems 1
       */
      authorizationServers?: [string, ...string[]];
      /**
       * The `aud` values that mean this resource (RFC 8707); by default the MCP endpoint's public URL. Entra ID: the API's Application ID URI or client id.
       *
       * @minItems 1
       */
      audience?: [string, ...string[]];
      /**
       * The issuer's JWKS, where its metadata does not name it (or to use another).
       */
      jwksUri?: string;
      /**
       * Signing algorithms accepted for JWT access tokens (never `none` or HMAC); by default all of these.
       *
       * @minItems 1
       */
      algorithms?: [
        (
          | 'RS256'
          | 'RS384'
          | 'RS512'
          | 'PS256'
          | 'PS384'
          | 'PS512'
          | 'ES256'
          | 'ES384'
          | 'ES512'
          | 'EdDSA'
          | 'Ed25519'
        ),
        ...(
          | 'RS256'
          | 'RS384'
          | 'RS512'
          | 'PS256'
          | 'PS384'
          | 'PS512'
          | 'ES256'
          | 'ES384'
          | 'ES512'
          | 'EdDSA'
          | 'Ed25519'
        )[]
      ];
      /**
       * The token claim that names the user (the user id of every call: upstream connections, previews, idempotency keys, bounds, the audit log); e.g. `email`, `preferred_username`, `oid`.
       *
       * @default "sub"
       */
      subjectClaim?: string;
      /**
       * Opaque access tokens: checked at the issuer's RFC 7662 introspection endpoint, as this client, instead of as JWTs.
       */
      introspection?: {
        /**
         * The introspection endpoint; by default the issuer's metadata's `introspection_endpoint`.
         */
        endpoint?: string;
        /**
         * The resource's client id at the issuer.
         */
        clientId: string;
        /**
         * The client's secret (better from the environment).
         */
        clientSecret?: string;
      };
      /**
       * Mode `issuer`: the client the host's own pages (`/connections`) sign people in as at your identity provider (authorization code with PKCE); register its redirect URI `<http.publicUrl>/connections/callback` there. Without it, `/connections` accepts static access tokens only.
       */
      pagesClient?: {
        /**
         * The pages' client id at the issuer.
         */
        clientId: string;
        /**
         * The client's secret, for a confidential client (better from the environment).
         */
        clientSecret?: string;
      };
      /**
       * The host's scopes as your identity provider names them (`tools:read` allows reading tools, `tools:write` also writing ones). A token's scope matches the whole name or its last segment after `/` (Entra ID's `scp`).
       */
      scopes?: {
        read?: string;
        write?: string;
      };
      /**
       * How long a validated token is reused without checking it again (never past its expiry); 0 checks every request.
       *
       * @default 60
       */
      cacheSeconds?: number;
    };
    /**
     * Users (by id) who see and end every user's connections at /connections; others see their own.
     */
    operators?: string[];
    /**
     * Open MCP sessions per user (per user and client name without access tokens); at the cap the least recently used idle one is closed.
     *
     * @default 16
     */
    maxSessionsPerUser?: number;
    /**
     * Open MCP sessions in all; at the cap the least recently used idle one is closed.
     *
     * @default 1000
     */
    maxSessions?: number;
    /**
     * Sessions idle this long are closed.
     *
     * @default 1800
     */
    sessionIdleSeconds?: number;
    /**
     * Origins whose web pages may call the MCP endpoint (`https://app.example`): their CORS preflights are answered and the answers' headers readable (the session id, the sign-in challenge). Loopback origins pass the DNS-rebinding check without being listed, but a page needs its origin listed to call across origins.
     */
    allowedOrigins?: string[];
    /**
     * Host header values answered besides the bound address and publicUrl's host (e.g. `mcp.example.com`).
     */
    allowedHosts?: string[];
    /**
     * The reverse proxies in front of the host, whose `X-Forwarded-For` tells the client's address: IP addresses, CIDR ranges (`10.0.0.0/8`), or `loopback`, `linklocal`, `uniquelocal`. The own authorization server's bounds per address (registrations, sign-ins started, failed sign-ins) count by that address; without this, every client behind a proxy counts as the proxy.
     */
    trustedProxies?: string[];
    /**
     * A bearer token of its own for `GET /metrics` (a Prometheus scraper), besides the access tokens of `http.operators`; no other user may read the metrics.
     */
    metricsToken?: string;
    /**
     * Largest request body accepted, in bytes.
     *
     * @default 4194304
     */
    maxBodyBytes?: number;
    /**
     * How long an idle connection is kept open for the client's next request, in seconds. Above the idle timeout of a balancer that pools connections to the host (AWS ALB and nginx: 60 s; GCP: 600 s), else the balancer reuses a connection the host is closing and answers 502 (docs/replicas.md).
     *
     * @default 75
     */
    keepAliveSeconds?: number;
    /**
     * How long a request's headers may take to arrive, in seconds; above `keepAliveSeconds`. Unset: `keepAliveSeconds` + 5.
     */
    headersTimeoutSeconds?: number;
    /**
     * On SIGTERM, how long `/readyz` and `/healthz` answer 503 while requests are still served, so that a balancer stops sending before the host refuses (a Kubernetes pre-stop delay; docs/replicas.md), in seconds. Then calls in progress finish (`shutdownGraceSeconds`) and new ones are refused.
     *
     * @default 0
     */
    drainDelaySeconds?: number;
  };
  /**
   * State shared by several host replicas behind a load balancer.
   */
  store?: {
    /**
     * Redis (`redis://`, or `rediss://` for TLS) for OAuth tokens, the one-refresh-at-a-time lock and pacing; needs TOOLHOST_TOKEN_KEY. Unset, each host keeps its own.
     */
    redisUrl?: string;
    /**
     * How long connecting to Redis may take (at start and on each reconnect), in ms.
     *
     * @default 5000
     */
    connectTimeoutMs?: number;
    /**
     * How long one Redis command may take before the call answers `store_unavailable`, in ms.
     *
     * @default 5000
     */
    commandTimeoutMs?: number;
    /**
     * Redis replicas that must hold a write that has to survive a failover (a rotated token, a deleted one, an idempotency key's attempt and outcome, an applied preview, and the own authorization server's registrations, codes, refresh tokens and revocations) before the host relies on it (`WAIT`); one that misses it is kept and written again, and a write is not sent until its attempt is held. Default 1 with `store.sentinels`, else 0 (set 1 for a Cluster with replicas). 0: no wait; a failover in the replication window (normally milliseconds) can then lose such writes.
     */
    replicaAcks?: number;
    /**
     * How long a write waits for `store.replicaAcks` replicas, in ms; short of them, it counts as not written (retryable `store_unavailable`, or written again in the background).
     *
     * @default 1000
     */
    replicaAckTimeoutMs?: number;
    /**
     * Redis Sentinel: `host:port` of each Sentinel. The host asks them for the master of `sentinelName` and follows failovers; `redisUrl` then gives only the credentials, database and TLS.
     *
     * @minItems 1
     */
    sentinels?: [string, ...string[]];
    /**
     * With `sentinels`: the name of the master group the Sentinels monitor.
     *
     * @default "mymaster"
     */
    sentinelName?: string;
    /**
     * Redis Cluster: `host:port` of some of its nodes (the host learns the rest from them and follows resharding and failovers); `redisUrl` (optional then) gives only the credentials and TLS (database 0). Not with `sentinels`.
     *
     * @minItems 1
     */
    cluster?: [string, ...string[]];
    /**
     * Put before every Redis key and channel (e.g. `staging:`), so that several deployments can share one Redis; the same on every replica of one.
     *
     * @default ""
     */
    keyPrefix?: string;
  };
  /**
   * User id for calls that name none (single-user setups, stdio).
   *
   * @default "default"
   */
  defaultUserId?: string;
  /**
   * Seconds in-flight calls get to finish on shutdown before they are cancelled.
   *
   * @default 10
   */
  shutdownGraceSeconds?: number;
  /**
   * An audit log: one JSON line per tool call and per refused request (time, replica, user, client, tool, outcome, upstream status), apart from the diagnostic logs.
   */
  audit?: {
    /**
     * `stdout` (not with the stdio transport), or a file appended to, relative to the config file. Unset: no audit log.
     */
    log?: string;
    /**
     * Also write each call's arguments, which may hold personal data.
     *
     * @default false
     */
    includeArguments?: boolean;
  };
  /**
   * Traces and metrics.
   */
  telemetry?: {
    /**
     * The secret user ids in traces are hashed under (HMAC-SHA256); by default derived from TOOLHOST_TOKEN_KEY, else random per process.
     */
    userIdKey?: string;
  };
  /**
   * Logs (JSON lines on stderr; pretty on a terminal).
   */
  logging?: {
    /**
     * Least severe level written.
     *
     * @default "info"
     */
    level?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  };
}
/**
 * Settings of one tool set, keyed by its name (e.g. `CrmEventsApi`).
 */
export interface ToolSetConfig {
  /**
   * false hides every tool of the set.
   *
   * @default true
   */
  enabled?: boolean;
  /**
   * Base URL of the set's default server: a proxy, a regional endpoint, a test server.
   */
  baseUrl?: string;
  /**
   * Base URLs per server key (e.g. GridApi's `scim`, `content`).
   */
  baseUrls?: {
    [k: string]: string;
  };
  /**
   * Plugin settings, checked against the plugin's schema (e.g. CdpPipelinesApi `region`).
   */
  settings?: {};
  /**
   * Another request rate than the plugin's (GridApi: 5 a second per base; each HubSpot tool set: 9 a second per connection, shared by the three), or false where something else paces.
   */
  pacing?:
    | false
    | {
        requestsPerSecond: number;
      };
}
/**
 * One auth provider, keyed by its id (e.g. `crm-auth-provider`).
 */
export interface AuthProviderConfig {
  /**
   * A static access token for every user (private-app token, personal access token).
   */
  token?: string;
  /**
   * OAuth client id; enables the per-user authorization flow.
   */
  clientId?: string;
  /**
   * OAuth client secret (better from the environment or the secrets file).
   */
  clientSecret?: string;
  /**
   * Redirect URI registered with the vendor; by default `<http.publicUrl>/oauth/callback/<provider id>`.
   */
  redirectUri?: string;
  /**
   * The vendor's authorization endpoint, where it differs from the plugin's.
   */
  authorizeUrl?: string;
  /**
   * The vendor's token endpoint, where it differs from the plugin's.
   */
  tokenUrl?: string;
  /**
   * The vendor's token revocation endpoint (RFC 7009); by default the plugin's, where it declares one.
   */
  revokeUrl?: string;
  /**
   * How to read which vendor account a token acts for, shown on the connections page: `bearer` (a GET with the token) or `introspection` (RFC 7662), and the answer's fields that name the account. By default the plugin's, unless `tokenUrl` points elsewhere.
   */
  account?: {
    via: 'bearer' | 'introspection';
    url: string;
    /**
     * @minItems 1
     */
    fields: [string, ...string[]];
  };
  /**
   * How the client authenticates at the token endpoint (HTTP Basic, or id and secret in the form body); by default the plugin's choice.
   */
  clientAuth?: 'basic' | 'post';
  /**
   * Scopes requested in every authorization, besides the ones a tool needs.
   */
  scopes?: string[];
}

/**
 * A configuration with its defaults filled in (`host.config`): every key that has a default is set.
 */
export interface ResolvedHostConfig {
  /**
   * Editor hint; ignored.
   */
  $schema?: string;
  /**
   * Plugin packages (names or paths) to load. By default every installed toolhost plugin. A relative path starts from the config file's directory; given by TOOLHOST_PLUGINS or --plugins, from the working directory.
   */
  plugins?: string[];
  /**
   * Per-tool-set settings, keyed by tool set name.
   */
  toolSets?: {
    [k: string]: ResolvedToolSetConfig;
  };
  /**
   * Which tools are exposed.
   */
  tools: {
    /**
     * Expose only these tool sets; by default every loaded one.
     */
    toolSets?: string[];
    /**
     * Globs on canonical names (`CrmEventsApi.*`); by default every tool.
     */
    allow?: string[];
    /**
     * Globs on canonical names, applied after `allow`.
     */
    deny?: string[];
    /**
     * Expose only tools that change nothing upstream.
     *
     * @default false
     */
    readOnly: boolean;
    /**
     * Ask the person (MCP form elicitation, showing the exact request) before any tool that is not read-only sends; a client that cannot be asked gets `confirmation_required` with a preview to apply (a piped `toolhost call`, none: nobody can apply it).
     *
     * @default false
     */
    confirmWrites: boolean;
    /**
     * How long a write preview (`preview_tool_call`) can be applied, in seconds.
     *
     * @default 600
     */
    previewTtlSeconds: number;
    /**
     * How many unexpired write previews one user may hold on a host, or across all replicas sharing a Redis store; one more is refused, naming this setting.
     *
     * @default 100
     */
    previewsPerUser: number;
    /**
     * How many idempotency keys holding outcomes one user may have on a host, or across all replicas sharing a Redis store; one more is refused, naming this setting. Writes confirmed on MCP 2026-07-28 (whose outcomes answer a retry of their confirmation for 10 minutes) are bounded alike, counted apart.
     *
     * @default 1000
     */
    idempotencyKeysPerUser: number;
    /**
     * With Redis: bytes of previews and idempotency records a user may keep; more is refused.
     *
     * @default 16777216
     */
    writeRecordBytesPerUser: number;
    /**
     * How long an idempotency key answers its first outcome instead of sending again, in seconds.
     *
     * @default 86400
     */
    idempotencyTtlSeconds: number;
    /**
     * With Redis: how long an idempotency key's (or a 2026-07-28 confirmation's) claim outlives a replica that stopped renewing it (it renews every third of this while its call runs), in seconds. A retry then answers `idempotency_outcome_unknown` (`confirmation_outcome_unknown`) instead of waiting.
     *
     * @default 10
     */
    idempotencyClaimSeconds: number;
    /**
     * How long a call waits for the same key (or 2026-07-28 confirmation) still running elsewhere before answering `idempotency_in_progress` (`confirmation_in_progress`; retryable), in seconds.
     *
     * @default 10
     */
    idempotencyWaitSeconds: number;
  };
  /**
   * Auth providers and where OAuth tokens are kept.
   */
  auth: {
    /**
     * Directory of the encrypted token file and write-safety records (with TOOLHOST_TOKEN_KEY), relative to the config file.
     *
     * @default ".toolhost-data"
     */
    dataDir: string;
    /**
     * Auth providers by id (e.g. `crm-auth-provider`, `grid-auth-provider`).
     */
    providers?: {
      [k: string]: ResolvedAuthProviderConfig;
    };
    /**
     * Deadline of each code exchange and revocation at a provider's endpoints, and how long a call waits for a token refresh before it is answered a retryable `upstream_unavailable` (the refresh itself is never cut short: it goes on under its lock, and the next call joins it), in seconds; kept below `refreshLockSeconds`.
     *
     * @default 10
     */
    tokenRequestTimeoutSeconds: number;
    /**
     * With Redis: how long the one-refresh-at-a-time lock outlives a replica that stopped extending it (extended while its refresh runs), in seconds.
     *
     * @default 30
     */
    refreshLockSeconds: number;
    /**
     * Refresh an access token this long before it expires, in seconds.
     *
     * @default 60
     */
    refreshSkewSeconds: number;
  };
  /**
   * Named secrets such as `CDP_API_KEY`; an environment variable of the same name wins.
   */
  secrets?: {
    [k: string]: string;
  };
  /**
   * A JSON file of named secrets (`{"CDP_API_KEY": "..."}`), relative to the config file.
   */
  secretsFile?: string;
  /**
   * Limits on upstream requests.
   */
  engine: {
    /**
     * Per upstream request, in ms: the whole exchange, from sending to the last byte of the answer; a request also waits at most this long for a slot.
     *
     * @default 30000
     */
    timeoutMs: number;
    /**
     * Largest upstream response accepted, in bytes.
     *
     * @default 10485760
     */
    maxResponseBytes: number;
    /**
     * Upstream requests in flight at once across all tools; the rest queue.
     *
     * @default 64
     */
    maxConcurrentRequests: number;
    /**
     * Upstream requests in flight at once to one upstream origin, so that a slow upstream cannot take every slot. Unset: 32 where the tool sets reach more than one origin, and maxConcurrentRequests where they all reach one (no other upstream to keep slots for).
     */
    maxConcurrentRequestsPerUpstream?: number;
    /**
     * Longest Retry-After honoured for one retry after a 429; longer waits return the error.
     *
     * @default 30
     */
    maxRateLimitWaitSeconds: number;
    /**
     * Retries of network errors and 5xx, only where safe (idempotent tools, or a request that never left), with exponential backoff and full jitter.
     */
    retry: {
      /**
       * Attempts in all, the first included.
       *
       * @default 3
       */
      maxAttempts: number;
      /**
       * Backoff before the first retry, doubled for each further one.
       *
       * @default 200
       */
      baseDelayMs: number;
      /**
       * Longest backoff between two attempts.
       *
       * @default 4000
       */
      maxDelayMs: number;
    };
  };
  /**
   * How tools are presented over MCP.
   */
  mcp: {
    /**
     * Separator between tool set and tool in MCP tool names (`CrmEventsApi_SendEvent`).
     *
     * @default "_"
     */
    nameSeparator: string;
    /**
     * `static` lists every tool; `dynamic` lists `search_tools`, `describe_tools` and `call_tool`, for clients that cannot hold the whole catalog; `auto` is `static` up to 100 listed tools and `dynamic` above (OpenAI and VS Code take at most 128 tools per request, shared with the client's own).
     *
     * @default "auto"
     */
    catalog: 'auto' | 'static' | 'dynamic';
    /**
     * Largest tool result text in bytes (about 20,000 tokens by default); a larger result comes back as a summary with a resource link to the whole result.
     *
     * @default 80000
     */
    maxResultBytes: number;
    /**
     * How long such a whole result stays readable, in seconds.
     *
     * @default 900
     */
    resultTtlSeconds: number;
  };
  /**
   * The Streamable HTTP server (`serve --http`) and the OAuth pages.
   */
  http: {
    /**
     * Address to bind; binding beyond loopback needs access tokens.
     *
     * @default "127.0.0.1"
     */
    host: string;
    /**
     * Port to listen on (0: any free port).
     *
     * @default 3333
     */
    port: number;
    /**
     * Path of the MCP endpoint.
     *
     * @default "/mcp"
     */
    path: string;
    /**
     * The URL users' browsers reach this host at (OAuth redirects behind a proxy); required for OAuth on a wildcard bind.
     */
    publicUrl?: string;
    /**
     * Bearer tokens the operator issues to MCP clients, by user id (`{"alice": "<token>"}`); required to bind beyond loopback.
     */
    accessTokens?: {
      [k: string]: string;
    };
    /**
     * How MCP clients sign in at the MCP endpoint (the MCP authorization spec), besides `http.accessTokens`: the endpoint is an OAuth 2.1 protected resource whose resource is its public URL (`http.publicUrl` + `http.path`).
     */
    authorization: {
      /**
       * `host`: the host's own authorization server (`http.authorization.server`) issues the tokens; `issuer`: your identity provider does.
       */
      mode?: 'host' | 'issuer';
      /**
       * The host's own authorization server (mode `host`): its issuer is `http.publicUrl` (or the bound address).
       */
      server?: {
        /**
         * How a person signs in before consenting.
         */
        signIn?: {
          /**
           * People may sign in with their access token from `http.accessTokens` (default true).
           */
          accessTokens?: boolean;
          /**
           * On a loopback host only: whoever reaches it is this user (single-user local mode), and only consents.
           */
          localUser?: string;
          /**
           * Sign in with the team's OpenID provider (Google, Microsoft Entra ID, Okta, Keycloak…).
           */
          oidc?: {
            /**
             * The provider's issuer URL.
             */
            issuer: string;
            /**
             * The client id the provider gave this host.
             */
            clientId: string;
            /**
             * Its client secret.
             */
            clientSecret?: string;
            /**
             * The name on the "Sign in with" button.
             */
            name?: string;
            /**
             * The ID token claim that is the user's id (default `email`, which must be verified; or `sub`, …).
             */
            userClaim?: string;
            /**
             * Only people whose verified email is at one of these domains may sign in.
             */
            allowedDomains?: string[];
            /**
             * Only these users (by the claim) may sign in.
             */
            allowedUsers?: string[];
          };
        };
        /**
         * Clients may register themselves (RFC 7591), bounded per address and in all (default true).
         */
        dynamicRegistration?: boolean;
        /**
         * Clients may be named by the https URL of their metadata document (default true).
         */
        clientIdMetadataDocuments?: boolean;
        /**
         * Client ids (URLs) or their hosts whose names the consent page shows as verified (e.g. `claude.ai`).
         */
        trustedClients?: string[];
        /**
         * Lifetime of an access token (default 600).
         */
        accessTokenSeconds?: number;
        /**
         * A grant unused this long ends; each refresh starts it again (default 30).
         */
        refreshTokenDays?: number;
      };
      /**
       * Mode `issuer` (the default where this is set): your identity provider's issuer URL, exactly as its tokens' `iss` (e.g. `https://login.example.com/realms/team`); its metadata names its keys.
       */
      issuer?: string;
      /**
       * The authorization servers the resource metadata names for clients to sign in at; by default the issuer.
       *
       * @minItems 1
       */
      authorizationServers?: [string, ...string[]];
      /**
       * The `aud` values that mean this resource (RFC 8707); by default the MCP endpoint's public URL. Entra ID: the API's Application ID URI or client id.
       *
       * @minItems 1
       */
      audience?: [string, ...string[]];
      /**
       * The issuer's JWKS, where its metadata does not name it (or to use another).
       */
      jwksUri?: string;
      /**
       * Signing algorithms accepted for JWT access tokens (never `none` or HMAC); by default all of these.
       *
       * @minItems 1
       */
      algorithms?: [
        (
          | 'RS256'
          | 'RS384'
          | 'RS512'
          | 'PS256'
          | 'PS384'
          | 'PS512'
          | 'ES256'
          | 'ES384'
          | 'ES512'
          | 'EdDSA'
          | 'Ed25519'
        ),
        ...(
          | 'RS256'
          | 'RS384'
          | 'RS512'
          | 'PS256'
          | 'PS384'
          | 'PS512'
          | 'ES256'
          | 'ES384'
          | 'ES512'
          | 'EdDSA'
          | 'Ed25519'
        )[]
      ];
      /**
       * The token claim that names the user (the user id of every call: upstream connections, previews, idempotency keys, bounds, the audit log); e.g. `email`, `preferred_username`, `oid`.
       *
       * @default "sub"
       */
      subjectClaim: string;
      /**
       * Opaque access tokens: checked at the issuer's RFC 7662 introspection endpoint, as this client, instead of as JWTs.
       */
      introspection?: {
        /**
         * The introspection endpoint; by default the issuer's metadata's `introspection_endpoint`.
         */
        endpoint?: string;
        /**
         * The resource's client id at the issuer.
         */
        clientId: string;
        /**
         * The client's secret (better from the environment).
         */
        clientSecret?: string;
      };
      /**
       * Mode `issuer`: the client the host's own pages (`/connections`) sign people in as at your identity provider (authorization code with PKCE); register its redirect URI `<http.publicUrl>/connections/callback` there. Without it, `/connections` accepts static access tokens only.
       */
      pagesClient?: {
        /**
         * The pages' client id at the issuer.
         */
        clientId: string;
        /**
         * The client's secret, for a confidential client (better from the environment).
         */
        clientSecret?: string;
      };
      /**
       * The host's scopes as your identity provider names them (`tools:read` allows reading tools, `tools:write` also writing ones). A token's scope matches the whole name or its last segment after `/` (Entra ID's `scp`).
       */
      scopes: {
        read: string;
        write: string;
      };
      /**
       * How long a validated token is reused without checking it again (never past its expiry); 0 checks every request.
       *
       * @default 60
       */
      cacheSeconds: number;
    };
    /**
     * Users (by id) who see and end every user's connections at /connections; others see their own.
     */
    operators?: string[];
    /**
     * Open MCP sessions per user (per user and client name without access tokens); at the cap the least recently used idle one is closed.
     *
     * @default 16
     */
    maxSessionsPerUser: number;
    /**
     * Open MCP sessions in all; at the cap the least recently used idle one is closed.
     *
     * @default 1000
     */
    maxSessions: number;
    /**
     * Sessions idle this long are closed.
     *
     * @default 1800
     */
    sessionIdleSeconds: number;
    /**
     * Origins whose web pages may call the MCP endpoint (`https://app.example`): their CORS preflights are answered and the answers' headers readable (the session id, the sign-in challenge). Loopback origins pass the DNS-rebinding check without being listed, but a page needs its origin listed to call across origins.
     */
    allowedOrigins?: string[];
    /**
     * Host header values answered besides the bound address and publicUrl's host (e.g. `mcp.example.com`).
     */
    allowedHosts?: string[];
    /**
     * The reverse proxies in front of the host, whose `X-Forwarded-For` tells the client's address: IP addresses, CIDR ranges (`10.0.0.0/8`), or `loopback`, `linklocal`, `uniquelocal`. The own authorization server's bounds per address (registrations, sign-ins started, failed sign-ins) count by that address; without this, every client behind a proxy counts as the proxy.
     */
    trustedProxies?: string[];
    /**
     * A bearer token of its own for `GET /metrics` (a Prometheus scraper), besides the access tokens of `http.operators`; no other user may read the metrics.
     */
    metricsToken?: string;
    /**
     * Largest request body accepted, in bytes.
     *
     * @default 4194304
     */
    maxBodyBytes: number;
    /**
     * How long an idle connection is kept open for the client's next request, in seconds. Above the idle timeout of a balancer that pools connections to the host (AWS ALB and nginx: 60 s; GCP: 600 s), else the balancer reuses a connection the host is closing and answers 502 (docs/replicas.md).
     *
     * @default 75
     */
    keepAliveSeconds: number;
    /**
     * How long a request's headers may take to arrive, in seconds; above `keepAliveSeconds`. Unset: `keepAliveSeconds` + 5.
     */
    headersTimeoutSeconds?: number;
    /**
     * On SIGTERM, how long `/readyz` and `/healthz` answer 503 while requests are still served, so that a balancer stops sending before the host refuses (a Kubernetes pre-stop delay; docs/replicas.md), in seconds. Then calls in progress finish (`shutdownGraceSeconds`) and new ones are refused.
     *
     * @default 0
     */
    drainDelaySeconds: number;
  };
  /**
   * State shared by several host replicas behind a load balancer.
   */
  store: {
    /**
     * Redis (`redis://`, or `rediss://` for TLS) for OAuth tokens, the one-refresh-at-a-time lock and pacing; needs TOOLHOST_TOKEN_KEY. Unset, each host keeps its own.
     */
    redisUrl?: string;
    /**
     * How long connecting to Redis may take (at start and on each reconnect), in ms.
     *
     * @default 5000
     */
    connectTimeoutMs: number;
    /**
     * How long one Redis command may take before the call answers `store_unavailable`, in ms.
     *
     * @default 5000
     */
    commandTimeoutMs: number;
    /**
     * Redis replicas that must hold a write that has to survive a failover (a rotated token, a deleted one, an idempotency key's attempt and outcome, an applied preview, and the own authorization server's registrations, codes, refresh tokens and revocations) before the host relies on it (`WAIT`); one that misses it is kept and written again, and a write is not sent until its attempt is held. Default 1 with `store.sentinels`, else 0 (set 1 for a Cluster with replicas). 0: no wait; a failover in the replication window (normally milliseconds) can then lose such writes.
     */
    replicaAcks?: number;
    /**
     * How long a write waits for `store.replicaAcks` replicas, in ms; short of them, it counts as not written (retryable `store_unavailable`, or written again in the background).
     *
     * @default 1000
     */
    replicaAckTimeoutMs: number;
    /**
     * Redis Sentinel: `host:port` of each Sentinel. The host asks them for the master of `sentinelName` and follows failovers; `redisUrl` then gives only the credentials, database and TLS.
     *
     * @minItems 1
     */
    sentinels?: [string, ...string[]];
    /**
     * With `sentinels`: the name of the master group the Sentinels monitor.
     *
     * @default "mymaster"
     */
    sentinelName: string;
    /**
     * Redis Cluster: `host:port` of some of its nodes (the host learns the rest from them and follows resharding and failovers); `redisUrl` (optional then) gives only the credentials and TLS (database 0). Not with `sentinels`.
     *
     * @minItems 1
     */
    cluster?: [string, ...string[]];
    /**
     * Put before every Redis key and channel (e.g. `staging:`), so that several deployments can share one Redis; the same on every replica of one.
     *
     * @default ""
     */
    keyPrefix: string;
  };
  /**
   * User id for calls that name none (single-user setups, stdio).
   *
   * @default "default"
   */
  defaultUserId: string;
  /**
   * Seconds in-flight calls get to finish on shutdown before they are cancelled.
   *
   * @default 10
   */
  shutdownGraceSeconds: number;
  /**
   * An audit log: one JSON line per tool call and per refused request (time, replica, user, client, tool, outcome, upstream status), apart from the diagnostic logs.
   */
  audit: {
    /**
     * `stdout` (not with the stdio transport), or a file appended to, relative to the config file. Unset: no audit log.
     */
    log?: string;
    /**
     * Also write each call's arguments, which may hold personal data.
     *
     * @default false
     */
    includeArguments: boolean;
  };
  /**
   * Traces and metrics.
   */
  telemetry?: {
    /**
     * The secret user ids in traces are hashed under (HMAC-SHA256); by default derived from TOOLHOST_TOKEN_KEY, else random per process.
     */
    userIdKey?: string;
  };
  /**
   * Logs (JSON lines on stderr; pretty on a terminal).
   */
  logging: {
    /**
     * Least severe level written.
     *
     * @default "info"
     */
    level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  };
}
/**
 * Settings of one tool set, keyed by its name (e.g. `CrmEventsApi`).
 */
export interface ResolvedToolSetConfig {
  /**
   * false hides every tool of the set.
   *
   * @default true
   */
  enabled: boolean;
  /**
   * Base URL of the set's default server: a proxy, a regional endpoint, a test server.
   */
  baseUrl?: string;
  /**
   * Base URLs per server key (e.g. GridApi's `scim`, `content`).
   */
  baseUrls?: {
    [k: string]: string;
  };
  /**
   * Plugin settings, checked against the plugin's schema (e.g. CdpPipelinesApi `region`).
   */
  settings?: {};
  /**
   * Another request rate than the plugin's (GridApi: 5 a second per base; each HubSpot tool set: 9 a second per connection, shared by the three), or false where something else paces.
   */
  pacing?:
    | false
    | {
        requestsPerSecond: number;
      };
}
/**
 * One auth provider, keyed by its id (e.g. `crm-auth-provider`).
 */
export interface ResolvedAuthProviderConfig {
  /**
   * A static access token for every user (private-app token, personal access token).
   */
  token?: string;
  /**
   * OAuth client id; enables the per-user authorization flow.
   */
  clientId?: string;
  /**
   * OAuth client secret (better from the environment or the secrets file).
   */
  clientSecret?: string;
  /**
   * Redirect URI registered with the vendor; by default `<http.publicUrl>/oauth/callback/<provider id>`.
   */
  redirectUri?: string;
  /**
   * The vendor's authorization endpoint, where it differs from the plugin's.
   */
  authorizeUrl?: string;
  /**
   * The vendor's token endpoint, where it differs from the plugin's.
   */
  tokenUrl?: string;
  /**
   * The vendor's token revocation endpoint (RFC 7009); by default the plugin's, where it declares one.
   */
  revokeUrl?: string;
  /**
   * How to read which vendor account a token acts for, shown on the connections page: `bearer` (a GET with the token) or `introspection` (RFC 7662), and the answer's fields that name the account. By default the plugin's, unless `tokenUrl` points elsewhere.
   */
  account?: {
    via: 'bearer' | 'introspection';
    url: string;
    /**
     * @minItems 1
     */
    fields: [string, ...string[]];
  };
  /**
   * How the client authenticates at the token endpoint (HTTP Basic, or id and secret in the form body); by default the plugin's choice.
   */
  clientAuth?: 'basic' | 'post';
  /**
   * Scopes requested in every authorization, besides the ones a tool needs.
   */
  scopes?: string[];
}
