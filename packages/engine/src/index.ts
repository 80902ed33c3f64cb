/**
 * `@toolhost/engine`: the one engine that executes tool declarations (validation, request
 * building, credentials, retries, pacing, the undici sender), and the checks a host runs on
 * the plugins it loads. Plugins never import it; hosts do.
 */
export { parseAnswerJson } from './answer-json.js';
export type { HttpRequestSpec } from './build-request.js';
export { checkAgainstSchema } from './check-against-schema.js';
export {
  checkToolSet,
  type DeclarationProblem,
  describeDeclarationProblems,
} from './check-declarations.js';
export {
  type DispatchResult,
  type EngineDependencies,
  type EngineObserver,
  type EngineOptions,
  type PreparedRequest,
  type PrepareResult,
  type RateLimitWaitKind,
  ToolEngine,
  type UpstreamRetry,
} from './engine.js';
export { ENGINE_DEFAULTS } from './engine-defaults.js';
export {
  type HttpResponse,
  type HttpSender,
  type SendOptions,
  UndiciHttpSender,
} from './http-sender.js';
export type { PacerFactory, RequestPacer } from './pacer.js';
export { RegisteredTool, ToolRegistry } from './registry.js';
export { MapSecretSource, StaticTokenAuthProvider } from './static-auth.js';
