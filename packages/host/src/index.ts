export {
  type BrowserSignIn,
  CALLBACK_PATH_PREFIX,
  EncryptedFileTokenStore,
  MemoryTokenStore,
  OAuthAuthProvider,
  OAuthCallbackError,
  type OAuthProviderConfig,
  type PendingFlow,
  type RevokeResult,
  type SignInProvider,
  TokenStoreError,
} from '@toolhost/credentials';
export type { HttpRequestSpec, HttpResponse, HttpSender, SendOptions } from '@toolhost/engine';
export {
  CachedVerifier,
  type JwtRules,
  JwtVerifier,
  localKeySetVerifier,
  remoteJwksVerifier,
  type TokenRejection,
  type TokenVerifier,
  type Verification,
  type VerifiedToken,
} from '@toolhost/front-door';
export { ToolIndex, type ToolMatch, type ToolSearchOptions } from '@toolhost/search';
export type { ConfirmWrite, PreviewOutcome } from '@toolhost/write-safety';
export { AccessTokens } from './auth/access-tokens.js';
export { defaultTokenStore } from './auth/build-auth-providers.js';
export {
  HOST_SCOPES,
  type HostScope,
  SCOPE_DESCRIPTIONS,
  scopeForToolCall,
  TOOLS_READ,
  TOOLS_WRITE,
} from './auth/front-door/scopes.js';
export type { CallWait, CallWaitObserver } from './call-waits.js';
export { CONFIG_DEFAULTS, resolveConfig } from './config/config-defaults.js';
export { hostConfigSchema } from './config/config-schema.js';
export { findConfig } from './config/find-config.js';
export {
  type AuthProviderConfig,
  defineConfig,
  type HostConfig,
  type ResolvedHostConfig,
  type ToolSetConfig,
} from './config/host-config.js';
export { ConfigError, loadConfigFile, validateConfig } from './config/load-config.js';
export { tokenEnvName } from './config/resolve-secrets.js';
export {
  type Connection,
  type Connections,
  ConnectionsError,
  type DisconnectResult,
  disconnect,
  listConnections,
  type StaticTokenUse,
} from './connections.js';
export {
  type CallOptions,
  createHost,
  type Host,
  type ToolEndpoint,
  type ToolInfo,
} from './host.js';
export { HostError, type HostErrorCode } from './host-error.js';
export type { HostOptions } from './host-options.js';
export type { HttpServeOptions } from './http/http-settings.js';
export { type HttpServerHandle, serveHttp } from './http/serve-http.js';
export { createLogger, type Logger } from './logger.js';
export { compactSchema, expandSchemaReferences } from './mcp/compact-schema.js';
export { createMcpServer, type McpServerOptions } from './mcp/create-mcp-server.js';
export { SERVER_INSTRUCTIONS } from './mcp/instructions.js';
export { effectiveAnnotations, type ListedAnnotations } from './mcp/listing.js';
export { renderOutcome, STATUS_META_KEY } from './mcp/render-outcome.js';
export { prepareMcpServingState } from './mcp/serving-state.js';
export { discoverPlugins, PLUGIN_KEYWORD, pluginSearchBases } from './plugins/discover-plugins.js';
export { assertCompatible, importPlugins, PluginLoadError } from './plugins/load-plugins.js';
export { HostServices, registerService, resolveService } from './services.js';
export type { QueryParameterName, ServingSupport } from './serving-support.js';
export { serveStdio } from './stdio/serve-stdio.js';
export { MAX_MCP_NAME, mcpToolName, ToolNameMap } from './tool-names.js';
