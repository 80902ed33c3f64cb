import type { CallSignal } from '@toolhost/core';
/** At most `limit` tasks run at once; the rest wait in order (or until their signal aborts). */
export class ConcurrencyLimit {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {}

  async run<T>(task: () => Promise<T>, signal?: CallSignal): Promise<T> {
    if (this.active >= this.limit) {
      await new Promise<void>((resolve, reject) => {
        const go = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          const i = this.waiting.indexOf(go);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(signal?.reason);
        };
        this.waiting.push(go);
        signal?.addEventListener('abort', onAbort, { once: true });
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
