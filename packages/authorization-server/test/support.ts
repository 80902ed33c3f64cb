import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AuthorizationServer,
  type AuthorizationServerOptions,
  createAuthorizationServer,
  MemoryStateStore,
  type WriteOptions,
} from '../src/index.js';

export const SCOPES = [
  { name: 'tools:read', description: 'See the tools and call the ones that only read' },
  { name: 'tools:write', description: 'Also call the tools that write' },
];

export interface Running {
  issuer: string;
  resource: string;
  as: AuthorizationServer;
  events: { type: string; error?: string }[];
  close(): Promise<void>;
}

/** A loopback HTTP server answering only the authorization server's paths. */
export async function startAuthorizationServer(
  overrides: Partial<AuthorizationServerOptions> = {},
): Promise<Running> {
  let issuer = '';
  const events: Running['events'] = [];
  const as = await createAuthorizationServer({
    issuer: () => issuer,
    resources: () => [`${issuer}/mcp`],
    scopes: SCOPES,
    defaultScopes: ['tools:read'],
    signIn: { accessToken: (token) => (token === 'alice-token-0123456789' ? 'alice' : undefined) },
    store: new MemoryStateStore(),
    onEvent: (e) => events.push(e),
    ...overrides,
  });
  const server = createServer((req, res) => {
    as.handle(req, res).then(
      (answered) => {
        if (!answered) {
          res.writeHead(404);
          res.end();
        }
      },
      (e: unknown) => {
        res.writeHead(500);
        res.end(String(e));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    resource: `${issuer}/mcp`,
    as,
    events,
    close: () => closeServer(server),
  };
}

export function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A loopback server answering every request with `answer` (a client's metadata document, a slow or huge one). */
export async function startStatic(
  answer: (req: IncomingMessage, res: ServerResponse, base: string) => void,
): Promise<{ base: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  let base = '';
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    answer(req, res, base);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, hits, close: () => closeServer(server) };
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * A browser for the sign-in and consent pages: keeps cookies, follows no redirect by itself,
 * and posts forms as a browser does from the page's own origin.
 */
/**
 * A public client's authorization request's parameters (code, S256 with a fresh challenge, and
 * `extra`), with the challenge's verifier.
 */
export function authorizeParams(
  clientId: string,
  redirectUri: string,
  extra: Record<string, string> = {},
): { verifier: string; params: Record<string, string> } {
  const { verifier, challenge } = pkce();
  const params = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  };
  return { verifier, params };
}

/** A public client's authorization request (code, S256 with a fresh challenge). */
export function authorizationUrl(issuer: string, clientId: string, redirectUri: string): string {
  return `${issuer}/auth/authorize?${new URLSearchParams(authorizeParams(clientId, redirectUri).params)}`;
}

/** The token request of a public client that redeems `code` (`none` when absent) with its verifier. */
export function redeemCode(
  issuer: string,
  client: { clientId: string; redirectUri: string },
  code: string | null | undefined,
  verifier: string,
) {
  return tokenRequest(issuer, {
    grant_type: 'authorization_code',
    code: code ?? 'none',
    code_verifier: verifier,
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
  });
}

/** The token request of a public client that refreshes with `refreshToken`. */
export function refreshRequest(issuer: string, clientId: string, refreshToken: string) {
  return tokenRequest(issuer, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: clientId,
  });
}

/** The sign-in page's link to the team's identity provider (`/auth/upstream?…`), if it has one. */
export function upstreamLinkOf(page: string): string | undefined {
  return /href="([^"]*\/auth\/upstream\?[^"]*)"/.exec(page)?.[1]?.replace(/&amp;/g, '&');
}

export class TestBrowser {
  private readonly jar = new Map<string, string>();

  async request(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.jar.size > 0) headers.set('cookie', [...this.jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      const at = pair.indexOf('=');
      this.jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return res;
  }

  /** GETs and follows redirects while they stay on `origin`; the last answer. */
  async open(url: string | URL, origin: string): Promise<{ res: Response; url: URL; text: string }> {
    let current = new URL(url);
    let res = await this.request(current);
    while (res.status >= 300 && res.status < 400) {
      const next = new URL(res.headers.get('location')!, current);
      if (next.origin !== origin) return { res, url: next, text: '' };
      current = next;
      res = await this.request(current);
    }
    return { res, url: current, text: await res.text() };
  }

  async post(
    action: string | URL,
    fields: Record<string, string>,
    headers: Record<string, string> = { origin: new URL(action).origin, 'sec-fetch-site': 'same-origin' },
  ): Promise<Response> {
    return this.request(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

export function formFields(html: string): { action: string; fields: Record<string, string> } {
  const action = /<form[^>]*action="([^"]*)"/i.exec(html)?.[1];
  if (!action) throw new Error(`no form on the page: ${html.slice(0, 400)}`);
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g))
    fields[m[1]!] = m[2]!;
  return { action: action.replace(/&amp;/g, '&'), fields };
}

/**
 * Registers a public client as MCP clients do (the SDK asks for both grants); `metadata` adds
 * to or replaces what it registers.
 */
export async function registerPublicClient(
  issuer: string,
  redirectUri: string,
  name = 'Test client',
  metadata: Record<string, unknown> = {},
): Promise<string> {
  const res = await fetch(`${issuer}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      client_name: name,
      grant_types: ['authorization_code', 'refresh_token'],
      ...metadata,
    }),
  });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { client_id: string }).client_id;
}

export function tokenRequest(
  issuer: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return fetch(`${issuer}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

/**
 * Runs the browser side to the redirect: authorize, sign in with the access token where asked,
 * consent (allow). The URL the client's redirect URI receives.
 */
export async function authorizeInBrowser(
  browser: TestBrowser,
  issuer: string,
  params: Record<string, string>,
  options: { token?: string; decision?: 'allow' | 'deny' } = {},
): Promise<URL> {
  const page = await signInToConsent(browser, issuer, params, options.token);
  if (page.url.origin !== issuer) return page.url;
  if (page.url.pathname !== '/auth/consent')
    throw new Error(`not at consent: ${page.res.status} ${page.text.slice(0, 300)}`);
  const { action, fields } = formFields(page.text);
  const res = await browser.post(new URL(action, issuer), {
    ...fields,
    decision: options.decision ?? 'allow',
  });
  if (res.status !== 303) throw new Error(`consent failed: ${res.status} ${await res.text()}`);
  return new URL(res.headers.get('location')!);
}

/**
 * A client authorized through sign-in and consent (PKCE S256): its code, the code's verifier,
 * and the URL the browser landed on.
 */
export async function authorizedCode(
  issuer: string,
  clientId: string,
  redirectUri: string,
  extra: Record<string, string> = {},
): Promise<{ code: string; verifier: string; landed: URL }> {
  const { verifier, params } = authorizeParams(clientId, redirectUri, extra);
  const landed = await authorizeInBrowser(new TestBrowser(), issuer, params);
  return { code: landed.searchParams.get('code')!, verifier, landed };
}

/**
 * Opens the authorization request and signs in with the access token where asked: the page
 * the browser then lands on (the consent page, or the client's redirect URI).
 */
export async function signInToConsent(
  browser: TestBrowser,
  issuer: string,
  params: Record<string, string>,
  token = 'alice-token-0123456789',
): Promise<{ res: Response; url: URL; text: string }> {
  const authorize = new URL(`${issuer}/auth/authorize`);
  for (const [k, v] of Object.entries(params)) authorize.searchParams.set(k, v);
  const page = await browser.open(authorize, issuer);
  if (page.url.pathname !== '/auth/sign-in') return page;
  const { action, fields } = formFields(page.text);
  const res = await browser.post(new URL(action, issuer), { ...fields, access_token: token });
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  return browser.open(new URL(res.headers.get('location')!, issuer), issuer);
}

/**
 * A store whose durable writes, while `short`, are written and then fail, as a Redis master's
 * are when no replica acknowledges them in time.
 */
export class ShortOfReplicas extends MemoryStateStore {
  short = false;
  /** How many reads from now fail, as a Redis cut off a moment after the write does. */
  awayFor = 0;
  /** Awaited before each read, for a test to run something between a write and the next read. */
  beforeGet?: (key: string) => Promise<unknown>;
  override async get(key: string) {
    if (this.awayFor > 0 && this.awayFor--) throw new Error('the store is away');
    await this.beforeGet?.(key);
    return super.get(key);
  }
  override async set(key: string, value: string, ttlSeconds?: number, options?: WriteOptions) {
    await super.set(key, value, ttlSeconds);
    if (options?.durable && this.short) throw new Error('no replica acknowledged the write');
  }
  override async setIfAbsent(key: string, value: string, ttlSeconds?: number, options?: WriteOptions) {
    const written = await super.setIfAbsent(key, value, ttlSeconds);
    if (options?.durable && this.short) throw new Error('no replica acknowledged the write');
    return written;
  }
  override async compareAndSet(
    key: string,
    expected: string | undefined,
    value: string,
    ttlSeconds?: number,
    options?: WriteOptions,
  ) {
    const written = await super.compareAndSet(key, expected, value, ttlSeconds);
    if (options?.durable && this.short) throw new Error('no replica acknowledged the write');
    return written;
  }
}
