/**
 * The name of a request config's function called as the request is written to its connection,
 * once that is open (undici's `onRequestStart`): when the request leaves, which its pacing
 * counts from. A module of its own: the sender names it without loading the adapter (and axios).
 */
export const DEPARTURE_HOOK = 'toolhostOnDeparture';
