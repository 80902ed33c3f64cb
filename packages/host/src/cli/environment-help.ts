/** Every environment variable the host reads, for `--help`. */
export const ENVIRONMENT_HELP = `
Environment variables:
  TOOLHOST_CONFIG               config file (as --config)
  TOOLHOST_PLUGINS              plugin packages or paths (from the working directory), comma-separated (as --plugins)
  TOOLHOST_ALLOW_EMPTY=1        start with no tool (as --allow-empty)
  TOOLHOST_TOOL_SETS            expose only these tool sets, comma-separated (as --tool-sets)
  TOOLHOST_READ_ONLY=1          expose only tools that change nothing (as --read-only)
  TOOLHOST_CONFIRM_WRITES=1     ask the person before every write (as --confirm-writes)
  TOOLHOST_ALLOW, TOOLHOST_DENY tool-name globs, comma-separated (as --allow, --deny)
  TOOLHOST_CATALOG              auto, static (every tool listed) or dynamic (search_tools, …), as --catalog
  TOOLHOST_PORT                 port for serve --http without a number, and for the OAuth pages (default 3333)
  TOOLHOST_LOG_LEVEL            fatal, error, warn, info (default), debug, trace or silent
  TOOLHOST_LOG_FORMAT           json or pretty (default: pretty on a terminal, else JSON)
  TOOLHOST_TOKEN_KEY            16+ characters: keep OAuth tokens encrypted on disk
  TOOLHOST_DATA_DIR             where the encrypted token file lives (default .toolhost-data)
  TOOLHOST_REDIS_URL            redis:// or rediss:// URL: share tokens and pacing among replicas
  TOOLHOST_ACCESS_TOKENS        user:token pairs for HTTP clients, comma-separated
  TOOLHOST_AUTH_ISSUER          your identity provider's issuer URL: MCP clients sign in with OAuth
                                (http.authorization.issuer)
  TOOLHOST_AUTH_AUDIENCE        the token audiences that mean this host, comma-separated
                                (default: the MCP endpoint's public URL)
  TOOLHOST_AUTH_SUBJECT_CLAIM   the token claim that names the user (default sub)
  TOOLHOST_AUTH_INTROSPECTION_SECRET  the client secret for RFC 7662 introspection (opaque tokens)
  TOOLHOST_PAGES_CLIENT_SECRET  the secret of /connections' client at your identity provider (http.authorization.pagesClient)
  TOOLHOST_SIGN_IN_CLIENT_SECRET  the sign-in provider's client secret (http.authorization's own server)
  TOOLHOST_TRUSTED_PROXIES      the reverse proxies whose X-Forwarded-For names the client, comma-separated
                                (http.trustedProxies)
  TOOLHOST_METRICS_TOKEN        16+ characters: a bearer token for GET /metrics (http.metricsToken)
  TOOLHOST_AUDIT_LOG            stdout, or a file: one line per call and sign-in (audit.log)
  TOOLHOST_TELEMETRY_KEY        16+ characters: the key user ids in traces are hashed under
  TOOLHOST_REPLICA_ID           the name log lines give this replica (default: host name and pid)
  TOOLHOST_BUNDLE_MANIFEST      set by the MCP Bundle: messages name its fields, not these variables
  <PROVIDER>_TOKEN              a static token per auth provider, e.g. CRM_AUTH_PROVIDER_TOKEN,
                                GRID_AUTH_PROVIDER_TOKEN
  <PROVIDER>_CLIENT_ID          an OAuth client per auth provider (and <PROVIDER>_CLIENT_SECRET)
  <SECRET NAME>                 named secrets the tools declare, e.g. CDP_API_KEY
  <TOOL_SET>_<SETTING>          a plugin setting over the config file's, e.g. CRM_AUTOMATION_API_USER_ID
                                (toolSets.CrmAutomationApi.settings.userId)
  A value that is still an unfilled \${…} template (an MCP client's placeholder) counts as unset.
  HTTP_PROXY, HTTPS_PROXY, NO_PROXY  route upstream requests through a proxy
`;
