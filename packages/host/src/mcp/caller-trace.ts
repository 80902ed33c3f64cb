import { context, propagation } from '@opentelemetry/api';

/**
 * Runs `fn` in the caller's trace when the request's `_meta` carries a W3C `traceparent` (and
 * `tracestate`), as MCP clients send them: the host's spans for the call are then children of
 * the caller's, not roots of their own. The propagator is the one the operator's OpenTelemetry
 * SDK registered (W3C Trace Context by default); with none, this changes nothing.
 */
export function withCallerTrace<T>(meta: Record<string, unknown> | undefined, fn: () => T): T {
  const traceparent = meta?.traceparent;
  if (typeof traceparent !== 'string') return fn();
  const tracestate = meta?.tracestate;
  const carrier = typeof tracestate === 'string' ? { traceparent, tracestate } : { traceparent };
  return context.with(propagation.extract(context.active(), carrier), fn);
}
