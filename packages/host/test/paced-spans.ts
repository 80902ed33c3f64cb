import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { expect } from 'vitest';

/**
 * What any `rate + 1` departures of a shared pacer's key span at least: its window of 1.1 s,
 * less 5 ms for the two clocks read (Redis's, which times the window, and this process's, which
 * stamps the departures).
 */
export const PACED_SPAN_MS = 1095;

/**
 * What any `rate + 1` arrivals at the vendor span at least: the vendor's second. The window's
 * other 100 ms are the network's, here the loopback's: on a machine with every core busy, the
 * kernel can hold a request's bytes for tens of ms after they were written.
 */
export const VENDOR_SECOND_MS = 1000;

/** The shortest span of `count` consecutive stamps, and what they were (for a failure's message). */
export interface Span {
  stamps: number;
  shortestMs: number;
  seen: string;
}

/**
 * Runs `work` and answers, with its result, the shortest span of any `count` consecutive
 * requests to `upstreamUrl`, twice:
 * - departures: each stamped as this process writes it to its connection (undici's
 *   `undici:client:sendHeaders`, published just before the write): what the pacer promises;
 * - arrivals (`RecordedRequest.receivedAt`, filled by the caller's responder): what the vendor
 *   counts. The upstream stamps a request as it parses its head, on the event loop this process
 *   shares with it: a request that arrived while the loop was busy is stamped late, and the span
 *   from it looks shorter than it was. So each span is lengthened by how late its first arrival
 *   can have been stamped: at most since the tick before the last one this process's loop ran
 *   before the stamp (a 2 ms ticker; the loop runs its timers once between two reads of its
 *   sockets).
 */
export async function pacedSpans<T>(
  upstreamUrl: string,
  arrivals: number[],
  count: number,
  work: () => Promise<T>,
): Promise<{ result: T; departures: Span; arrivals: Span }> {
  const origin = new URL(upstreamUrl).origin;
  const departures: number[] = [];
  const onSend = (message: unknown) => {
    const sent = (message as { request?: { origin?: unknown } }).request?.origin;
    if (sent !== undefined && new URL(String(sent)).origin === origin) departures.push(now());
  };
  const ticks: number[] = [now()];
  const ticker = setInterval(() => ticks.push(now()), 2);
  subscribe('undici:client:sendHeaders', onSend);
  let result: T;
  try {
    result = await work();
  } finally {
    unsubscribe('undici:client:sendHeaders', onSend);
    clearInterval(ticker);
  }
  return {
    result,
    departures: shortestSpan(departures, count, 'departures'),
    arrivals: shortestSpan(arrivals, count, 'arrivals', ticks),
  };
}

/** Every request of `expected` both left and arrived at least its bound apart, `count` at a time. */
export function expectPaced(
  spans: { departures: Span; arrivals: Span },
  count: number,
  expected: number,
): void {
  expect(spans.departures.stamps, 'requests seen leaving').toBe(expected);
  expect(spans.arrivals.stamps, 'requests seen arriving').toBe(expected);
  expect(
    spans.departures.shortestMs,
    `the shortest span of ${count} departures, ms (${spans.departures.seen})`,
  ).toBeGreaterThanOrEqual(PACED_SPAN_MS);
  expect(
    spans.arrivals.shortestMs,
    `the shortest span of ${count} arrivals, ms (${spans.arrivals.seen}; the shortest of departures ${Math.round(spans.departures.shortestMs)} ms)`,
  ).toBeGreaterThanOrEqual(VENDOR_SECOND_MS);
}

const now = () => performance.timeOrigin + performance.now();

/** Stamps as they come, with no lateness: `ticks` given, each span is lengthened as above. */
function shortestSpan(stamps: number[], count: number, what: string, ticks: number[] = []): Span {
  const sorted = [...stamps].sort((x, y) => x - y);
  let shortestMs = Number.POSITIVE_INFINITY;
  let at = -1;
  // The last tick at or before each stamp (both in order, so the index only moves on).
  let last = 0;
  for (let i = 0; i + count - 1 < sorted.length; i += 1) {
    const t = sorted[i]!;
    while (last + 1 < ticks.length && ticks[last + 1]! <= t) last += 1;
    const lateness = ticks.length > 0 && ticks[last]! <= t ? t - ticks[Math.max(0, last - 1)]! : 0;
    const span = sorted[i + count - 1]! - t + lateness;
    if (span < shortestMs) {
      shortestMs = span;
      at = i;
    }
  }
  const window = at < 0 ? [] : sorted.slice(at, at + count);
  return { stamps: stamps.length, shortestMs, seen: describeSpan(what, window, ticks) };
}

/** A span's stamps from its first, and the longest the event loop stalled around them. */
function describeSpan(what: string, window: number[], ticks: number[]): string {
  if (window.length === 0) return `too few ${what}`;
  const [first, last] = [window[0]!, window.at(-1)!];
  const offsets = window.map((t) => `+${Math.round(t - first)}`).join(' ');
  let stall = 0;
  for (let i = 1; i < ticks.length; i += 1)
    if (ticks[i]! >= first - 200 && ticks[i - 1]! <= last) stall = Math.max(stall, ticks[i]! - ticks[i - 1]!);
  return ticks.length > 0
    ? `${what} at ${offsets} ms, the loop's longest pause from 200 ms before them ${Math.round(stall)} ms`
    : `${what} at ${offsets} ms`;
}
