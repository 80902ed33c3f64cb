/** The largest initialize request a session is opened with (its client's handshake). */
export const MAX_INITIALIZE_BYTES = 64 * 1024;

/**
 * Why an initialize request is too large to open a session, or undefined. A session keeps
 * what the client said of itself for its life (with replicas, the whole request, which any
 * replica replays to rebuild it): a client's handshake is a few kB, and a body as large as any
 * request may be would make each session that much of memory, or of Redis.
 */
export function oversizedInitialize(initialize: unknown): string | undefined {
  const size = Buffer.byteLength(JSON.stringify(initialize));
  if (size <= MAX_INITIALIZE_BYTES) return undefined;
  return `The initialize request is ${size} bytes; a session keeps it for its life, so it may be up to ${MAX_INITIALIZE_BYTES} bytes`;
}
