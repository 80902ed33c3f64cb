import { EARLIER_CLIENT_GRANT_TYPES, type GrantType, grantTypesOf } from './grant-types.js';
import { type GuardedFetchLimits, guardedGet } from './guarded-fetch.js';
import { isLoopbackHost, redirectUriProblem } from './redirect-uris.js';
import type { StateStore } from './state-store.js';

/** A client as the server knows it, from its registration or its metadata document. */
export interface Client {
  clientId: string;
  redirectUris: string[];
  clientName?: string;
  clientUri?: string;
  /** `none` (a public client, PKCE alone) or a client secret method. */
  tokenEndpointAuthMethod: 'none' | 'client_secret_basic' | 'client_secret_post';
  /** The hash of its secret, for a confidential registered client. */
  secretHash?: string;
  /** Where the client came from: a metadata document at its client id, or registration here. */
  source: 'metadata-document' | 'registration';
  /** The grants it may use: a refresh token is issued only to a client with `refresh_token`. */
  grantTypes: GrantType[];
}

/**
 * A registered client as stored; one registered before grant types were kept has none. `seenAt`
 * (milliseconds) is when its expiry was last moved on; none while it was never issued tokens.
 */
type StoredClient = Omit<Client, 'grantTypes'> & { grantTypes?: GrantType[]; seenAt?: number };

/** A client's expiry is moved on at most this often: each token issued would write it. */
const SEEN_EVERY_MS = 86_400_000;

/**
 * How long a registration is kept before tokens are first issued to it: anyone may register,
 * and kept as long as a client in use, registrations nobody signs in with would pile up.
 */
export const UNUSED_CLIENT_SECONDS = 86_400;

export class ClientError extends Error {
  constructor(
    readonly code: 'invalid_client' | 'invalid_client_metadata' | 'invalid_redirect_uri',
    message: string,
  ) {
    super(message);
  }
}

/** Whether a client id is a URL naming a client id metadata document. */
export function isMetadataDocumentId(clientId: string): boolean {
  return clientId.startsWith('https://') || clientId.startsWith('http://');
}

/**
 * Why a client id cannot be a metadata document URL (draft-ietf-oauth-client-id-metadata-document
 * §3): https with a path, no fragment, credentials or dot segments; or undefined.
 */
export function metadataDocumentIdProblem(clientId: string, allowLoopback: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'is not a URL';
  }
  const loopbackHttp = url.protocol === 'http:' && allowLoopback && isLoopbackHost(url.hostname);
  if (url.protocol !== 'https:' && !loopbackHttp) return 'is not an https URL';
  if (url.pathname === '/' || url.pathname === '') return 'has no path';
  if (url.hash || clientId.includes('#')) return 'has a fragment';
  if (url.username || url.password) return 'carries credentials';
  if (/\/\.\.?(\/|$)/.test(clientId.slice(url.origin.length))) return 'has dot segments';
  return undefined;
}

export interface ClientResolverOptions {
  store: StateStore;
  /** Fetch client id metadata documents (default true). */
  metadataDocuments: boolean;
  fetchLimits: GuardedFetchLimits;
  /** How long a document is trusted when its answer does not say (seconds). */
  defaultCacheSeconds: number;
  /** Clients known without registration (the embedding application's own pages). */
  firstParty?: () => readonly Client[];
  /**
   * How long a registered client is kept after it was last issued tokens (seconds): each issue
   * keeps it for this long again (a day's once), so only clients nobody uses any more expire.
   */
  registeredClientSeconds?: number;
  /** The clock (milliseconds), as the store's. */
  now?: () => number;
}

interface Cached {
  client?: Client;
  error?: string;
  until: number;
}

const MAX_CACHED = 1000;

/**
 * Finds the client behind a client id: a registered one in the store, or the metadata
 * document its URL serves, fetched under the server-side fetch guards and cached (failures
 * too, briefly, so that a slow or broken URL is not fetched on every attempt).
 */
export class ClientResolver {
  private readonly cache = new Map<string, Cached>();

  constructor(private readonly options: ClientResolverOptions) {}

  /** `beforeFetch` runs only where the document is about to be fetched (not cached), and may refuse. */
  async resolve(clientId: string, beforeFetch?: () => Promise<void>): Promise<Client> {
    const own = this.options.firstParty?.().find((c) => c.clientId === clientId);
    if (own) return own;
    if (!isMetadataDocumentId(clientId)) {
      const saved = await this.options.store.get(`client:${clientId}`);
      if (saved === undefined) throw new ClientError('invalid_client', 'This client is not registered here');
      const { seenAt: _seenAt, ...client } = JSON.parse(saved) as StoredClient;
      return { ...client, grantTypes: client.grantTypes ?? [...EARLIER_CLIENT_GRANT_TYPES] };
    }
    if (!this.options.metadataDocuments) {
      throw new ClientError('invalid_client', 'Client id metadata documents are not accepted by this server');
    }
    const problem = metadataDocumentIdProblem(clientId, this.options.fetchLimits.allowLoopback);
    if (problem) throw new ClientError('invalid_client', `The client id ${problem}`);
    const cached = this.cache.get(clientId);
    if (cached && cached.until > Date.now()) {
      if (cached.client) return cached.client;
      throw new ClientError('invalid_client', cached.error ?? 'The client metadata document is not usable');
    }
    await beforeFetch?.();
    try {
      const { client, cacheSeconds } = await this.fetchDocument(clientId);
      this.remember(clientId, { client, until: Date.now() + cacheSeconds * 1000 });
      return client;
    } catch (e) {
      const message = `The client metadata document at the client id ${(e as Error).message}`;
      this.remember(clientId, { error: message, until: Date.now() + 30_000 });
      throw new ClientError('invalid_client', message);
    }
  }

  /**
   * A registered client was issued tokens: kept `registeredClientSeconds` from now. Only this
   * keeps it: an authorization or token request anyone can make for any client id.
   */
  async issuedTokens(client: Client): Promise<void> {
    const keep = this.options.registeredClientSeconds;
    if (keep === undefined || client.source !== 'registration') return;
    const key = `client:${client.clientId}`;
    const saved = await this.options.store.get(key);
    if (saved === undefined) return;
    const stored = JSON.parse(saved) as StoredClient;
    const now = (this.options.now ?? Date.now)();
    if (stored.seenAt !== undefined && now - stored.seenAt < SEEN_EVERY_MS) return;
    await this.options.store.set(key, JSON.stringify({ ...stored, seenAt: now }), keep);
  }

  private remember(clientId: string, entry: Cached): void {
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(clientId, entry);
  }

  private async fetchDocument(clientId: string): Promise<{ client: Client; cacheSeconds: number }> {
    const answer = await guardedGet(new URL(clientId), this.options.fetchLimits);
    if (answer.status !== 200) throw new Error(`answered HTTP ${answer.status}`);
    if (!/^application\/([\w.+-]+\+)?json\b/i.test(answer.contentType)) throw new Error('is not JSON');
    let document: Record<string, unknown>;
    try {
      document = JSON.parse(answer.body) as Record<string, unknown>;
    } catch {
      throw new Error('is not valid JSON');
    }
    if (document === null || typeof document !== 'object' || Array.isArray(document))
      throw new Error('is not a JSON object');
    if (document.client_id !== clientId) throw new Error('names another client_id');
    const method = document.token_endpoint_auth_method ?? 'none';
    if (method !== 'none')
      throw new Error(`asks for token_endpoint_auth_method ${String(method)}; only none is supported here`);
    if ('client_secret' in document || 'client_secret_expires_at' in document)
      throw new Error('carries a client secret, which a public document must not');
    let grantTypes: GrantType[];
    try {
      grantTypes = grantTypesOf(document, false);
    } catch (e) {
      throw new Error(`is not usable: ${(e as Error).message}`);
    }
    const client: Client = {
      clientId,
      redirectUris: redirectUrisOf(document.redirect_uris),
      tokenEndpointAuthMethod: 'none',
      source: 'metadata-document',
      grantTypes,
      ...displayFieldsOf(document),
    };
    return { client, cacheSeconds: cacheSecondsOf(answer.cacheControl, this.options.defaultCacheSeconds) };
  }
}

/** The redirect URIs of a document or registration, each checked; the first problem thrown. */
export function redirectUrisOf(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) throw new Error('has no redirect_uris');
  if (value.length > 20) throw new Error('has more than 20 redirect_uris');
  for (const uri of value) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new Error(`has a redirect URI that ${problem}`);
  }
  return value as string[];
}

/** The client's name and home page, kept short and only where they are what they claim. */
export function displayFieldsOf(document: Record<string, unknown>): {
  clientName?: string;
  clientUri?: string;
} {
  const fields: { clientName?: string; clientUri?: string } = {};
  const name = typeof document.client_name === 'string' ? shownText(document.client_name) : '';
  if (name) fields.clientName = name.slice(0, 100);
  if (typeof document.client_uri === 'string' && document.client_uri.startsWith('https://')) {
    fields.clientUri = document.client_uri.slice(0, 500);
  }
  return fields;
}

/**
 * Text a client chose, as the consent page may show it: without control characters, invisible
 * formatting (a bidirectional override would have "moc.elgoog" read as "google.com", a zero-width
 * space hides in "goo\u200bgle") and the letters that draw nothing: the Hangul fillers, the blank
 * braille pattern, variation selectors (the same set the write confirmation escapes).
 */
export function shownText(text: string): string {
  return text
    .replace(
      /[\p{Cc}\p{Cf}\u{115F}\u{1160}\u{3164}\u{FFA0}\u{2800}]|[\u{FE00}-\u{FE0F}\u{E0100}-\u{E01EF}]/gu,
      '',
    )
    .replace(/\s+/g, ' ')
    .trim();
}

/** max-age of the answer's Cache-Control, within a minute and a day; `no-store` keeps it a minute. */
function cacheSecondsOf(cacheControl: string, fallback: number): number {
  if (/no-store|no-cache/i.test(cacheControl)) return 60;
  const maxAge = /max-age=(\d+)/i.exec(cacheControl)?.[1];
  const seconds = maxAge === undefined ? fallback : Number(maxAge);
  return Math.min(86_400, Math.max(60, seconds));
}
