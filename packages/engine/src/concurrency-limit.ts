import { type CallSignal, ToolError } from '@toolhost/core';

/**
 * At most `limit` tasks run at once; the rest wait in order, until their signal aborts or,
 * given `maxWaitMs`, until that long has passed (a `timeout` error: a queue that never moves
 * must not hold a call for ever).
 */
export class ConcurrencyLimit {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {}

  async run<T>(task: () => Promise<T>, signal?: CallSignal, maxWaitMs?: number): Promise<T> {
    if (this.active >= this.limit) {
      await new Promise<void>((resolve, reject) => {
        let timer: NodeJS.Timeout | undefined;
        const leave = () => {
          const i = this.waiting.indexOf(go);
          if (i >= 0) this.waiting.splice(i, 1);
          signal?.removeEventListener('abort', onAbort);
          clearTimeout(timer);
        };
        const go = () => {
          signal?.removeEventListener('abort', onAbort);
          clearTimeout(timer);
          resolve();
        };
        const onAbort = () => {
          leave();
          reject(signal?.reason);
        };
        this.waiting.push(go);
        signal?.addEventListener('abort', onAbort, { once: true });
        if (maxWaitMs !== undefined) {
          timer = setTimeout(() => {
            leave();
            reject(
              new ToolError({
                code: 'timeout',
                retryable: true,
                message: `No upstream request slot became free within ${maxWaitMs} ms (${this.limit} requests in flight).`,
              }),
            );
          }, maxWaitMs);
        }
      });
    } else this.active += 1;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    }
  }

  get pending(): number {
    return this.waiting.length;
  }
}
