/**
 * The latest instant a Date can hold (ECMAScript's limit). A vendor whose tokens never expire
 * may say so with an expires_in that lands past it, or past what JSON can write (Infinity):
 * such an expiry is none, or no page could show it and no store could keep it.
 */
const LAST_DATE_MS = 8.64e15;

/** Whether `ms` (epoch milliseconds) is an instant a Date can hold: one a page can show and a store keep. */
export function withinDateRange(ms: number | undefined): ms is number {
  return typeof ms === 'number' && Math.abs(ms) <= LAST_DATE_MS;
}
