import { FIRST_STATELESS_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from './sdk.js';

/**
 * The 2026-07-28 requests a reused server answers, over HTTP and stdio alike: the ones every
 * client sends again and again. Anything else of that revision (`server/discover`, reads of
 * stored results, subscriptions, notifications) takes the SDK's own entry, rarely enough that
 * its cost does not matter, and so every rejection keeps the SDK's exact words.
 */
export const REUSED_METHODS: ReadonlySet<string> = new Set(['tools/call', 'tools/list']);

/** The revisions reused servers are bound to; a later one takes the SDK's entry until listed here. */
export const REUSED_REVISIONS: readonly string[] = [FIRST_STATELESS_VERSION];

/**
 * The protocol versions a reused server accepts: the SDK's defaults and the revisions it is
 * bound to. Connecting a server to a transport that names one of them binds the server to it
 * (the SDK's public way to serve 2026-07-28 outside its entries), only if it is listed here.
 */
export const REUSED_SERVER_VERSIONS: string[] = [...SUPPORTED_PROTOCOL_VERSIONS, ...REUSED_REVISIONS];
