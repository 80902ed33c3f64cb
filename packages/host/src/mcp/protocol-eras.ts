import { isMessage, isObject, isRequest, metaOf } from './jsonrpc-messages.js';
import {
  classifyInboundRequest,
  PROTOCOL_VERSION_META_KEY,
  type Server,
  SUPPORTED_PROTOCOL_VERSIONS,
} from './sdk.js';

/**
 * Every decision about which protocol era a message belongs to, in the SDK's words: `legacy`
 * (MCP 2025-11-25 and earlier: `initialize`, then the requests of a session; the docs say
 * "session era") and `modern` (2026-07-28 and later: every request stands alone and names its
 * revision in its `_meta` envelope). The transports ask here; none decides on its own.
 */

/** The first modern revision (no sessions, no server-to-client requests). */
export const FIRST_MODERN_REVISION = '2026-07-28';

/**
 * Whether a server answers the modern era, where it cannot send its client a request (an
 * elicitation) mid-call. Revisions are ISO dates, so they compare as strings.
 */
export function servesModernEra(server: Server): boolean {
  const version = server.getNegotiatedProtocolVersion();
  return version !== undefined && version >= FIRST_MODERN_REVISION;
}

/**
 * The modern requests a revision server answers, over HTTP and stdio alike: the ones every
 * client sends again and again. Anything else of that era (`server/discover`, reads of stored
 * results, subscriptions, notifications) takes the SDK's own entry, rarely enough that its cost
 * does not matter, and so every rejection keeps the SDK's exact words.
 */
export const REVISION_SERVER_METHODS: ReadonlySet<string> = new Set(['tools/call', 'tools/list']);

/** The revisions revision servers are bound to; a later one takes the SDK's entry until listed here. */
export const REVISION_SERVER_REVISIONS: readonly string[] = [FIRST_MODERN_REVISION];

/**
 * The protocol versions a revision server accepts: the SDK's defaults and the revisions it is
 * bound to. Connecting a server to a transport that names one of them binds the server to it
 * (the SDK's public way to serve a modern revision outside its entries).
 */
export const REVISION_SERVER_VERSIONS: string[] = [
  ...SUPPORTED_PROTOCOL_VERSIONS,
  ...REVISION_SERVER_REVISIONS,
];

/** What the SDK's classification reads of an HTTP request (stdio has the body alone). */
export interface InboundMessage {
  httpMethod: string;
  body: unknown;
  protocolVersionHeader?: string | undefined;
  mcpMethodHeader?: string | undefined;
  mcpNameHeader?: string | undefined;
}

type Message = Record<string, unknown>;

/** A request or notification (not a response) whose `_meta` names a protocol version. */
function namesRevision(message: Message): boolean {
  if (typeof message.method !== 'string' || 'result' in message || 'error' in message) return false;
  const meta = metaOf(message);
  return meta !== undefined && PROTOCOL_VERSION_META_KEY in meta;
}

/**
 * Whether an HTTP request belongs to the legacy era, by the SDK's own classification of the
 * body the endpoint has already parsed (so that a legacy request pays for no web `Request`).
 * A single request (not `initialize`) naming a revision in its `_meta` is never legacy by the
 * SDK's rules (it serves it as modern or refuses it, classifying it again on that path), so
 * its classification here is skipped.
 */
export function isLegacyRequest(inbound: InboundMessage): boolean {
  const body = inbound.body;
  if (isObject(body) && body.method !== 'initialize' && namesRevision(body)) return false;
  return classifyInboundRequest(inbound).kind === 'legacy';
}

/**
 * Whether a stdio connection's first message opens the legacy era: a request or notification
 * that names no protocol version in its `_meta` (`initialize` or anything else).
 */
export function opensLegacyConnection(first: unknown): boolean {
  if (!isObject(first) || typeof first.method !== 'string') return false;
  if ('result' in first || 'error' in first) return false;
  return !namesRevision(first);
}

/** The era the SDK's stdio entry pins a connection to on a message. */
export type PinnedEra = { era: 'legacy' } | { era: 'modern'; revision: string };

/**
 * The era the SDK's entry pins a connection to on this message, by the SDK's classification of
 * a body (on stdio the body is all there is): `modern` for a request of a revision servers'
 * revision other than `server/discover` (which only probes), `legacy` for a legacy request or
 * notification; undefined for a message that pins nothing.
 */
export function eraPinnedBy(message: unknown): PinnedEra | undefined {
  if (!isObject(message) || typeof message.method !== 'string') return undefined;
  const route = classifyInboundRequest({ httpMethod: 'POST', body: message });
  if (route.kind === 'legacy') return { era: 'legacy' };
  if (route.kind !== 'modern' || route.messageKind !== 'request' || message.method === 'server/discover')
    return undefined;
  const revision = route.classification.revision;
  return revision !== undefined && REVISION_SERVER_REVISIONS.includes(revision)
    ? { era: 'modern', revision }
    : undefined;
}

/** The `_meta` keys MCP reserves (the envelope, a task's relation): the classification reads them all. */
const RESERVED_META_PREFIX = 'io.modelcontextprotocol/';

/**
 * The SDK's verdicts on modern requests, by what they depend on (see modernRevisionOf). Every
 * part of a key is the client's choice (its name, its capabilities), so both the number of
 * verdicts and the size of each key are bounded: a client sending megabytes of name with each
 * request is classified every time, and keeps nothing here.
 */
export class VerdictCache {
  private readonly verdicts = new Map<string, string | null>();

  constructor(
    readonly maxEntries = 256,
    /** Longest key kept, in UTF-16 units: an ordinary envelope is a few hundred. */
    readonly maxKeyLength = 2048,
  ) {}

  get size(): number {
    return this.verdicts.size;
  }

  /** The UTF-16 units the kept keys hold, for tests and the bench. */
  get keyLength(): number {
    let total = 0;
    for (const key of this.verdicts.keys()) total += key.length;
    return total;
  }

  get(key: string): string | null | undefined {
    return this.verdicts.get(key);
  }

  set(key: string, verdict: string | null): void {
    if (key.length > this.maxKeyLength) return;
    if (this.verdicts.size >= this.maxEntries) this.verdicts.clear();
    this.verdicts.set(key, verdict);
  }
}

const verdicts = new VerdictCache();

/**
 * The revision the SDK's classification gives a modern request, undefined for anything else.
 *
 * The classification checks the message's shape with zod three times (is it a result, an
 * error, a request) and the envelope once more, about 4% of a modern request's CPU, and a
 * client sends the same envelope with every request. So a request of a plain shape (one the
 * SDK's strict schemas take whatever the payload, as isMessage checks it, with an id and a
 * `_meta`; not one with a member no request has, `__proto__` say, which they refuse) has its verdict
 * looked up by what the verdict depends on beyond that shape: the method, the two headers and
 * the reserved `_meta` keys. Only the first request of each such combination is classified;
 * any other shape is classified every time, as before.
 */
export function modernRevisionOf(
  message: Message,
  protocolVersionHeader: string,
  mcpMethodHeader: string,
  cache: VerdictCache = verdicts,
): string | undefined {
  try {
    return classifiedRevision(message, protocolVersionHeader, mcpMethodHeader, cache);
  } catch (e) {
    // An envelope nested thousands of levels deep (a client's capabilities) overflows the stack
    // in the key's JSON.stringify and in the SDK's classification: not a request this vouches
    // for, so the SDK's entry answers it, as any other, rather than the endpoint failing (500).
    if (e instanceof RangeError) return undefined;
    throw e;
  }
}

/** modernRevisionOf's verdict, which may overflow the stack. */
function classifiedRevision(
  message: Message,
  protocolVersionHeader: string,
  mcpMethodHeader: string,
  cache: VerdictCache,
): string | undefined {
  const key = verdictKey(message, protocolVersionHeader, mcpMethodHeader);
  const known = key === undefined ? undefined : cache.get(key);
  if (known !== undefined) return known ?? undefined;
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    body: message,
    protocolVersionHeader,
    mcpMethodHeader,
  });
  const revision =
    route.kind === 'modern' && route.messageKind === 'request' ? route.classification.revision : undefined;
  if (key !== undefined) cache.set(key, revision ?? null);
  return revision;
}

/** What a plain-shaped request's verdict depends on; undefined for a request of any other shape. */
function verdictKey(message: Message, versionHeader: string, methodHeader: string): string | undefined {
  const meta = isMessage(message) && isRequest(message) ? metaOf(message) : undefined;
  if (!meta) return undefined;
  const reserved: unknown[] = [];
  for (const [k, v] of Object.entries(meta)) if (k.startsWith(RESERVED_META_PREFIX)) reserved.push(k, v);
  return JSON.stringify([message.method, versionHeader, methodHeader, reserved]);
}
