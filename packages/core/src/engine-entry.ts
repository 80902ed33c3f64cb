/**
 * `@toolhost/core/engine`: what a host needs to execute declarations. Loads ajv (validation)
 * and, on the first request, axios; plugins never import it.
 */
export { behaviorHints } from './behavior-hints.js';
export type { HttpRequestSpec } from './build-request.js';
export { checkAgainstSchema } from './check-against-schema.js';
export {
  checkToolSet,
  type DeclarationProblem,
  describeDeclarationProblems,
} from './check-declarations.js';
export { type EngineDependencies, type EngineOptions, ToolEngine } from './engine.js';
export { AxiosHttpSender, type HttpResponse, type HttpSender, type SendOptions } from './http-sender.js';
export { buildInputSchema } from './input-schema.js';
export { RegisteredTool, ToolRegistry } from './registry.js';
export { MapSecretSource, StaticTokenAuthProvider } from './static-auth.js';
