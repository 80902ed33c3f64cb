import type { CallSignal } from '@toolhost/core';
import { ToolError } from '@toolhost/core';

/**
 * A refresh under way, awaited by one call until that call's own deadline: `ms` (the provider's
 * token request deadline), or the call being cancelled. A call that stops waiting is told to try
 * again (its request was not sent); the refresh goes on, and the next call joins it rather than
 * send its refresh token again.
 */
export function awaitRefresh<T>(
  flight: Promise<T>,
  providerId: string,
  ms: number,
  signal?: CallSignal,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', cancelled);
    };
    const timer = setTimeout(() => {
      done();
      reject(
        new ToolError(
          {
            code: 'upstream_unavailable',
            retryable: true,
            retryAfterSeconds: 2,
            message: `The token endpoint of '${providerId}' has not answered a refresh in ${ms / 1000} s; the refresh goes on (its refresh token is not sent again), and nothing was sent: try again in a few seconds.`,
          },
          { requestNotSent: true },
        ),
      );
    }, ms);
    const cancelled = () => {
      done();
      reject(signal?.reason);
    };
    if (signal?.aborted) return cancelled();
    signal?.addEventListener('abort', cancelled, { once: true });
    flight.then(
      (value) => {
        done();
        resolve(value);
      },
      (e: unknown) => {
        done();
        reject(e);
      },
    );
  });
}
