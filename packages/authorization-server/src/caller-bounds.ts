import { BadRequest } from './http-util.js';
import type { StateStore } from './state-store.js';

/** A bound on something anyone may ask for: per caller and in all, per window. */
export interface CallerBound {
  /** The counters' key prefix (`<prefix>:<caller>` and `<prefix>:*`). */
  prefix: string;
  perAddress: number;
  total: number;
  windowSeconds: number;
  /** What is counted, for the refusal ("sign-ins were started"). */
  what: string;
}

/** How long a window is, as a person reads it (rounded up): a refusal's Retry-After is at most that. */
export function within(seconds: number): string {
  if (seconds < 120) return `${seconds} seconds`;
  if (seconds < 7200) return `${Math.ceil(seconds / 60)} minutes`;
  return `${Math.ceil(seconds / 3600)} hours`;
}

/**
 * Counts one more for the caller and in all, and refuses past either bound (429, with the
 * window as Retry-After). The bound in all is for a flood from many addresses, whose counts
 * per address each stay low.
 */
export async function countForCaller(store: StateStore, caller: string, bound: CallerBound): Promise<void> {
  const retry = { 'retry-after': String(bound.windowSeconds) };
  if ((await store.increment(`${bound.prefix}:${caller}`, bound.windowSeconds)) > bound.perAddress)
    throw new BadRequest(
      429,
      'too_many_requests',
      `Too many ${bound.what} from your network; try again within ${within(bound.windowSeconds)}.`,
      retry,
    );
  if ((await store.increment(`${bound.prefix}:*`, bound.windowSeconds)) > bound.total)
    throw new BadRequest(
      429,
      'too_many_requests',
      `Too many ${bound.what}; try again within ${within(bound.windowSeconds)}.`,
      retry,
    );
}
