import type { RequestPreview } from '@toolhost/core';

/** Asks the person whether a request may be sent; true only on an explicit yes. */
export type ConfirmWrite = (
  write: { tool: string; request: RequestPreview['request'] },
  signal: AbortSignal,
) => Promise<boolean>;

/** Marks a NobodyToAsk of any copy of this package (an embedder's may be another than the host's). */
const NOBODY_TO_ASK = Symbol.for('toolhost.write-safety.nobodyToAsk');

/**
 * Thrown (rejected) by a `confirm` that has nobody to ask, such as a command off a terminal: the
 * write is refused as `confirmation_required` with this message, rather than taken for a "no".
 */
export class NobodyToAsk extends Error {
  readonly [NOBODY_TO_ASK] = true;

  /** Whether `e` is one, made by whichever copy of this package. */
  static is(e: unknown): e is NobodyToAsk {
    return (
      typeof e === 'object' && e !== null && (e as { [NOBODY_TO_ASK]?: unknown })[NOBODY_TO_ASK] === true
    );
  }
}

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
): Promise<boolean | NobodyToAsk> {
  if (signal.aborted) return false;
  let stop = () => {};
  const cancelled = new Promise<false>((resolve) => {
    stop = () => resolve(false);
    signal.addEventListener('abort', stop, { once: true });
  });
  const answered = (async () => (await confirm(write, signal)) === true)().catch((e: unknown) =>
    NobodyToAsk.is(e) ? e : false,
  );
  try {
    return await Promise.race([answered, cancelled]);
  } finally {
    signal.removeEventListener('abort', stop);
  }
}
