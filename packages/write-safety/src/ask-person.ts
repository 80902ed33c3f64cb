import type { RequestPreview } from '@toolhost/core';

/** Asks the person whether a request may be sent; true only on an explicit yes. */
export type ConfirmWrite = (
  write: { tool: string; request: RequestPreview['request'] },
  signal: AbortSignal,
) => Promise<boolean>;

/**
 * The person's answer, as the call can take it: an embedder's `confirm` may ignore its signal
 * and never settle, which held the call past its cancellation and `close()` forever; or throw,
 * which rejected the call. The answer stops counting once the call is cancelled, and a throw
 * is no yes (as an MCP elicitation that fails).
 */
export async function askPerson(
  confirm: ConfirmWrite,
  write: Parameters<ConfirmWrite>[0],
  signal: AbortSignal,
): Promise<boolean> {
  if (signal.aborted) return false;
  let stop = () => {};
  const cancelled = new Promise<false>((resolve) => {
    stop = () => resolve(false);
    signal.addEventListener('abort', stop, { once: true });
  });
  const answered = (async () => (await confirm(write, signal)) === true)().catch(() => false);
  try {
    return await Promise.race([answered, cancelled]);
  } finally {
    signal.removeEventListener('abort', stop);
  }
}
