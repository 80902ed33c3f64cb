/**
 * The code of the adapter's error for an answer whose body it cannot decode (a content coding
 * it does not know, or too many over one another). A module of its own, as DEPARTURE_HOOK: the
 * sender names it without loading the adapter (and axios, and node:zlib).
 */
export const UNDECODABLE_BODY = 'ERR_UNDECODABLE_BODY';
