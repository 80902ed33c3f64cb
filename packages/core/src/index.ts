/**
 * The plugin contract: what a tool-set plugin is written against. Types, the plugin
 * definition, declaration builders, mode semantics and the error type, with no runtime
 * dependency. The engine that executes declarations is the `@toolhost/engine` package.
 */
export type {
  AuthProvider,
  AuthProviderSetup,
  CallContext,
  CallSignal,
  CallWaitListener,
  CallWaitReason,
  CallWaitRetry,
  CredentialRequest,
  CredentialResult,
  SecretSource,
} from './auth.js';
export { behaviorHints } from './behavior-hints.js';
export { bodyParam, headerParam, pathParam, providerAuth, queryParam, secretAuth } from './builders.js';
export { CONTRACT_VERSION, type ContractCheck, checkContractVersion } from './contract-version.js';
export {
  buildInputSchema,
  describeTool,
  MODE_PARAM,
  parameterRules,
  REQUEST_BODY_PARAM,
  TOOL_MODES,
  type ToolMode,
} from './input-schema.js';
export type { JsonSchema } from './json-schema.js';
export {
  type ContractVersionLiteral,
  defineToolSetPlugin,
  type PluginContainer,
  type PluginOptions,
  registerToolSet,
  type ServiceToken,
  serviceToken,
  TOOL_SET_TOKEN,
  type ToolPlugin,
  type ToolSetPluginDefinition,
} from './plugin.js';
export type {
  AccountLookup,
  OAuthEndpoints,
  StoredConnection,
  StoredToken,
  TokenStore,
} from './token-store.js';
export { replacesStored, sameGrant } from './token-store.js';
export {
  type AuthRequirement,
  type BehaviorHints,
  type BodyDeclaration,
  type BodyLimits,
  type DynamicDefault,
  type ExecuteOnly,
  type HttpMethod,
  isModeTool,
  type PacingPolicy,
  type ParamDeclaration,
  type ParamLocation,
  type PastRequestDeclaration,
  type QueryStyle,
  qualifiedName,
  type ToolDeclaration,
  type ToolSetDefinition,
  type TrafficPolicy,
} from './tool-declaration.js';
export { type RequestPreview, ToolError, type ToolErrorCode, type ToolErrorInfo } from './tool-error.js';
export type { ToolOutcome } from './tool-outcome.js';
export { PARAM_VOCABULARY, TOOL_SET_VOCABULARY, TOOL_VOCABULARY } from './vocabulary.js';
