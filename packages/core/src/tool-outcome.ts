import type { ToolErrorInfo } from './tool-error.js';

/** What a tool call produced: the upstream response, a request-body schema, or an error. */
export type ToolOutcome =
  | { ok: true; kind: 'response'; status: number; body: unknown }
  | { ok: true; kind: 'schema'; schema: unknown }
  | { ok: false; error: ToolErrorInfo };
