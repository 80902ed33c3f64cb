export type { AuthProvider, CallContext, CredentialRequest, CredentialResult, SecretSource } from './auth.js';
export { behaviorHints } from './behavior-hints.js';
export { buildRequest, type HttpRequestSpec, WHOLE_BODY } from './build-request.js';
export { checkDeclarations } from './check-declarations.js';
export { errorForResponse, retryAfterSeconds } from './classify-response.js';
export { CONTRACT_VERSION, type ContractCheck, checkContractVersion } from './contract-version.js';
export { AUTH_PROVIDER, HTTP_SENDER, SECRET_SOURCE, TOOL_SET } from './di-tokens.js';
export { type EngineDependencies, type EngineOptions, ToolEngine } from './engine.js';
export { AxiosHttpSender, type HttpResponse, type HttpSender, type SendOptions } from './http-sender.js';
export {
  buildInputSchema,
  MODE_PARAM,
  REQUEST_BODY_PARAM,
  TOOL_MODES,
  type ToolMode,
} from './input-schema.js';
export type { JsonSchema } from './json-schema.js';
export { Pacer } from './pacer.js';
export {
  defineToolSetPlugin,
  type PluginOptions,
  type ToolPlugin,
  type ToolSetPluginDefinition,
} from './plugin.js';
export { RegisteredTool, ToolRegistry } from './registry.js';
export { encodeQuery, type QueryPair, queryPairs } from './serialize-query.js';
export { MapSecretSource, StaticTokenAuthProvider } from './static-auth.js';
export type { OAuthEndpoints, StoredToken, TokenStore } from './token-store.js';
export {
  type AuthRequirement,
  type BehaviorHints,
  type BodyDeclaration,
  type BodyLimits,
  type DynamicDefault,
  type HttpMethod,
  isModeTool,
  type ParamDeclaration,
  type ParamLocation,
  type QueryStyle,
  qualifiedName,
  type ToolDeclaration,
  type ToolSetDefinition,
  type ToolSetSettings,
} from './tool-declaration.js';
export { ToolError, type ToolErrorCode, type ToolErrorInfo } from './tool-error.js';
export type { ToolOutcome } from './tool-outcome.js';
export { type Arguments, parseRequestBody, validateArguments } from './validate-arguments.js';
