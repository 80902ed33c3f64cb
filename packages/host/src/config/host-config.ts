/** Settings of one tool set. */
export interface ToolSetConfig {
  /** false hides every tool of the set (default true). */
  enabled?: boolean;
  /** Base URL of the set's default server: a proxy, a regional endpoint, a test server. */
  baseUrl?: string;
  /** Base URLs per server key (e.g. GridApi's `scim`, `content`). */
  baseUrls?: Record<string, string>;
  /** Plugin-specific settings (e.g. CdpPipelinesApi `region`). */
  settings?: Record<string, unknown>;
  /** Another request rate than the plugin's (e.g. GridApi's 5 per second per base), or false for none. */
  pacing?: { requestsPerSecond: number } | false;
}

export interface AuthProviderConfig {
  /** A static access token for every user (private-app token, personal access token). */
  token?: string;
  /** OAuth client id (env `<PROVIDER_ID>_CLIENT_ID`); enables the per-user authorization flow. */
  clientId?: string;
  /** OAuth client secret (env `<PROVIDER_ID>_CLIENT_SECRET`, or the secrets file). */
  clientSecret?: string;
  /** Redirect URI registered with the vendor; default `<http.publicUrl>/oauth/callback/<provider id>`. */
  redirectUri?: string;
  /** Override the plugin's default authorize and token endpoints. */
  authorizeUrl?: string;
  tokenUrl?: string;
  /** The vendor's token revocation endpoint (RFC 7009); default the plugin's, where it declares one. */
  revokeUrl?: string;
  clientAuth?: 'basic' | 'post';
  /** Scopes requested in every authorization, besides the ones a tool needs. */
  scopes?: string[];
}

/** The host's configuration, as a file (JSON or YAML) or an object passed by an embedder. */
export interface HostConfig {
  /** Plugin packages to load, by package name. Default: every installed toolhost plugin. */
  plugins?: string[];
  /** Per-tool-set settings, keyed by tool set name (e.g. `CrmEventsApi`). */
  toolSets?: Record<string, ToolSetConfig>;
  /** Which tools are exposed. */
  tools?: {
    /** Expose only these tool sets (env TOOLHOST_TOOL_SETS, flag --tool-sets); default all loaded. */
    toolSets?: string[];
    /** Globs on canonical names (`CrmEventsApi.*`); default all. */
    allow?: string[];
    /** Globs on canonical names; applied after allow. */
    deny?: string[];
    /** Expose only tools that change nothing upstream. */
    readOnly?: boolean;
    /**
     * Ask the person (MCP form elicitation) before any tool that is not read-only sends, showing
     * the exact request (env TOOLHOST_CONFIRM_WRITES, flag --confirm-writes; default false).
     */
    confirmWrites?: boolean;
    /** How long a write preview can be applied, in seconds (default 600). */
    previewTtlSeconds?: number;
    /** How long an idempotency key answers its stored outcome, in seconds (default 86400). */
    idempotencyTtlSeconds?: number;
  };
  /** Auth providers by id (e.g. `crm-auth-provider`, `grid-auth-provider`). */
  auth?: {
    providers?: Record<string, AuthProviderConfig>;
    /** Where the default token store keeps its encrypted file (env TOOLHOST_DATA_DIR; default `.toolhost-data` beside the config). */
    dataDir?: string;
  };
  /** Named secrets such as CDP_API_KEY. Environment variables of the same name win. */
  secrets?: Record<string, string>;
  /** A JSON file of named secrets (`{"CDP_API_KEY": "..."}`), relative to the config file. */
  secretsFile?: string;
  /** Upstream call limits. */
  engine?: {
    /**
     * Per upstream request, in ms (default 30000): the whole exchange, from sending to the
     * last byte of the answer; a request also waits at most this long for a slot.
     */
    timeoutMs?: number;
    /** Largest upstream response accepted (default 10 MiB). */
    maxResponseBytes?: number;
    /** Upstream requests in flight at once (default 64). */
    maxConcurrentRequests?: number;
    /** Upstream requests in flight at once to one upstream origin (default 32). */
    maxConcurrentRequestsPerUpstream?: number;
    /** Attempts for safe retries (default 3), and the backoff bounds. */
    retry?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number };
    /** Longest Retry-After honoured for one retry (default 30). */
    maxRateLimitWaitSeconds?: number;
  };
  /** MCP exposure. */
  mcp?: {
    /** Separator between tool set and tool in MCP tool names (default `_`). */
    nameSeparator?: string;
    /**
     * `static` (default): tools/list lists every tool. `dynamic`: it lists `search_tools`,
     * `describe_tools` and `call_tool`, for clients that cannot hold the whole catalog
     * (env TOOLHOST_CATALOG, CLI `serve --catalog`).
     */
    catalog?: 'static' | 'dynamic';
    /**
     * Largest tool result text in bytes (default 80000, about 20,000 tokens). A larger result
     * comes back as a summary with a resource link to the whole result.
     */
    maxResultBytes?: number;
    /** How long such a whole result stays readable, in seconds (default 900). */
    resultTtlSeconds?: number;
  };
  /** Streamable HTTP server. */
  http?: {
    host?: string;
    port?: number;
    path?: string;
    /** The URL users' browsers reach this host at (for OAuth redirects behind a proxy). */
    publicUrl?: string;
    allowedOrigins?: string[];
    /** Host header values answered besides the bound address and publicUrl's host (e.g. `mcp.example.com`). */
    allowedHosts?: string[];
    maxBodyBytes?: number;
    /**
     * Bearer tokens the operator issues to MCP clients, by user id (`{ "alice": "<token>" }`;
     * env TOOLHOST_ACCESS_TOKENS="alice:<token>,bob:<token>"). Required to bind beyond loopback.
     */
    accessTokens?: Record<string, string>;
    /** Users (by id) who see and end every user's connections at /connections; others see their own. */
    operators?: string[];
    /**
     * Open MCP sessions per user (default 16; per user and client name without access
     * tokens) and in all (default 1000); at a cap the least recently used idle one is closed.
     */
    maxSessionsPerUser?: number;
    maxSessions?: number;
    /** Sessions idle this long are closed (default 1800 s). */
    sessionIdleSeconds?: number;
  };
  /** State shared by several host replicas behind a load balancer. */
  store?: {
    /**
     * Redis (`redis://` or `rediss://` for TLS; env TOOLHOST_REDIS_URL wins) for OAuth tokens,
     * the one-refresh-at-a-time lock and pacing. Needs TOOLHOST_TOKEN_KEY; unset, each host
     * keeps its own (the embedded default).
     */
    redisUrl?: string;
  };
  /** Seconds in-flight calls get to finish on shutdown before they are cancelled (default 10). */
  shutdownGraceSeconds?: number;
  /** User id for calls that name none (single-user setups). */
  defaultUserId?: string;
  logging?: { level?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent' };
}

/** Typed helper for config files written in TypeScript or JavaScript. */
export function defineConfig(config: HostConfig): HostConfig {
  return config;
}
