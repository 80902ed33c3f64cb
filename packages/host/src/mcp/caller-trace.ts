import { createRequire } from 'node:module';
import { otelRegistered } from '../observability/host-telemetry.js';

// Loaded only once an OpenTelemetry SDK is set up: a host without one (a desktop client's
// stdio host) never loads the API for this.
const require = createRequire(import.meta.url);
let api: typeof import('@opentelemetry/api') | undefined;

/**
 * Runs `fn` in the caller's trace when the request's `_meta` carries a W3C `traceparent` (and
 * `tracestate`), as MCP clients send them: the host's spans for the call are then children of
 * the caller's, not roots of their own. The propagator is the one the operator's OpenTelemetry
 * SDK registered (W3C Trace Context by default); with none, this changes nothing.
 */
export function withCallerTrace<T>(meta: Record<string, unknown> | undefined, fn: () => T): T {
  const traceparent = meta?.traceparent;
  // Without an SDK there is no propagator to read it and no span to parent.
  if (typeof traceparent !== 'string' || !otelRegistered()) return fn();
  api ??= require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const { context, propagation } = api;
  const tracestate = meta?.tracestate;
  const carrier = typeof tracestate === 'string' ? { traceparent, tracestate } : { traceparent };
  return context.with(propagation.extract(context.active(), carrier), fn);
}
