/** What a credential in a log line is replaced with. */
export const CENSOR = '[redacted]';

/** Keys whose values are credentials, in any case and at any depth (`Authorization`, `access_token`, …). */
const CREDENTIAL_KEY = /^(?:authorization|proxy-authorization|token|secret|access_?token|refresh_?token)$/i;

/** Deeper than this, a log line holds no object the host logs: left as it is. */
const MAX_DEPTH = 8;

/**
 * A log line's fields with every credential-named value censored: a copy of what changed, the
 * value itself where nothing did (the common case, a line of ids, names and numbers, costs a
 * walk of its keys and nothing else).
 *
 * The host's own rather than pino's `redact` option: pino redacts by path, and a path with a
 * wildcard (`*.token`) cost about 7 µs per line, more than the rest of writing it, on every
 * tool call's log line; and paths reach only the depths listed. This walks the own keys of
 * objects and arrays at any depth up to MAX_DEPTH (a header bag of an HTTP client's class
 * too). Errors are left to the error serializer, which hands its result back to this;
 * buffers are left as they are.
 */
export function redactCredentials(value: unknown, depth = 0): unknown {
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return value;
  if (value instanceof Error || ArrayBuffer.isView(value)) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i += 1) {
      const next = redactCredentials(value[i], depth + 1);
      if (next !== value[i]) {
        out ??= [...value];
        out[i] = next;
      }
    }
    return out ?? value;
  }
  const record = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const item = record[key];
    const next = CREDENTIAL_KEY.test(key) ? CENSOR : redactCredentials(item, depth + 1);
    if (next !== item) {
      out ??= { ...record };
      out[key] = next;
    }
  }
  return out ?? value;
}
