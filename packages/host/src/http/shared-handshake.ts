/** The largest initialize request a session shared by replicas keeps (its client's handshake). */
export const MAX_SHARED_INITIALIZE_BYTES = 64 * 1024;

/**
 * Why an initialize request is too large to open a session shared by replicas, or undefined.
 * Its record keeps the request for the session's life (any replica replays it to rebuild the
 * session): a client's handshake is a few kB, and a body as large as any request may be would
 * make each session that much of Redis.
 */
export function oversizedHandshake(initialize: unknown): string | undefined {
  const size = Buffer.byteLength(JSON.stringify(initialize));
  if (size <= MAX_SHARED_INITIALIZE_BYTES) return undefined;
  return `The initialize request is ${size} bytes; with replicas it is kept for the session's life, up to ${MAX_SHARED_INITIALIZE_BYTES} bytes`;
}
