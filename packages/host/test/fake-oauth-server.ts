import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type StoredToken, type TokenStore, ToolError } from '@toolhost/core';
import type { AuthProviderConfig } from '../src/config/host-config.js';

export interface FakeOAuthServer {
  url: string;
  authorizeUrl: string;
  tokenUrl: string;
  /** RFC 7009 revocation endpoint. */
  revokeUrl: string;
  /** RFC 7662 introspection endpoint: names the person and the account a live access token acts for. */
  introspectUrl: string;
  /** A bearer endpoint answering who the access token acts for (as Airtable's `whoami`). */
  whoamiUrl: string;
  /** Account lookups received (introspection and whoami): what each carried. */
  accountLookups: { path: string; authorization?: string; form?: Record<string, string> }[];
  /** Revocation requests received: the token and its type hint. */
  revocations: { token: string; token_type_hint?: string }[];
  /** Token requests received, by grant type. */
  grants: { grant_type: string; refresh_token?: string }[];
  /** Seconds until issued access tokens expire. */
  expiresIn: number;
  /** Answer every refresh with invalid_grant, as after the user revoked the app. */
  refuseRefresh: boolean;
  /** Answer every token request with invalid_client, as after the app's secret was changed. */
  refuseClient: boolean;
  /** Answer revocations with this status instead of revoking (a vendor failing: 503). */
  revokeFailure?: number;
  /**
   * Awaited after a token or revocation request is recorded (with its grant type, or
   * `revoke`) and before it is answered: a stall (a promise that never settles), or a fault
   * (a rejection: the connection is dropped with no answer, nothing done).
   */
  beforeAnswer?: ((grant: string) => Promise<void>) | undefined;
  /**
   * Awaited once a refresh is done at the vendor (the old refresh token spent, the new one
   * issued) and before it is answered: a vendor that stalls after the fact; a rejection drops
   * the connection with no answer, the refresh done.
   */
  afterRefreshing?: (() => Promise<void>) | undefined;
  /**
   * Rewrites the answer to a refresh done at the vendor (the old refresh token spent, the new
   * one issued): a vendor whose answer is otherwise malformed.
   */
  rewriteRefresh?: ((answer: Record<string, unknown>) => Record<string, unknown>) | undefined;
  /**
   * Whether a refresh issues a new refresh token and spends the one sent (Airtable, OAuth 2.1
   * for public clients; the default), or answers with the same one, still good (HubSpot).
   */
  rotateRefreshTokens: boolean;
  /**
   * Refresh tokens presented again after they were spent: each revokes its whole grant (every
   * refresh token issued from it since), as OAuth 2.1 asks of a server that detects reuse.
   */
  reuses: string[];
  /**
   * Issues tokens as an authorization would, without the browser round trip (tests that start
   * from an authorized user); the refresh token is as good as one from the token endpoint.
   */
  mint(scope: string): { access_token: string; refresh_token: string };
  /** Forgets grants and restarts token numbering (access-1, refresh-1-…). */
  reset(): void;
  close(): Promise<void>;
}

const CLIENT_ID = 'client-123';
export const CLIENT_SECRET = 'client-secret-never-logged-42';

/**
 * A loopback OAuth 2.0 authorization server: authorize (auto-consent, records the PKCE
 * challenge), token (authorization_code with PKCE check, refresh_token with rotation).
 */
export async function startFakeOAuthServer(): Promise<FakeOAuthServer> {
  const codes = new Map<string, { challenge: string; redirectUri: string; scope: string }>();
  /** Each live refresh token and the grant it belongs to; spent ones, for reuse detection. */
  const refreshTokens = new Map<string, number>();
  const spent = new Map<string, number>();
  let counter = 0;
  let grantCounter = 0;
  const state: FakeOAuthServer = {
    url: '',
    authorizeUrl: '',
    tokenUrl: '',
    revokeUrl: '',
    introspectUrl: '',
    whoamiUrl: '',
    accountLookups: [],
    revocations: [],
    grants: [],
    expiresIn: 3600,
    refuseRefresh: false,
    refuseClient: false,
    rotateRefreshTokens: true,
    reuses: [],
    mint: (scope) => issue(scope),
    reset() {
      counter = 0;
      state.grants.length = 0;
      state.revocations.length = 0;
      state.accountLookups.length = 0;
      state.expiresIn = 3600;
      state.refuseRefresh = false;
      state.refuseClient = false;
      delete state.revokeFailure;
      state.beforeAnswer = undefined;
      state.afterRefreshing = undefined;
      state.rewriteRefresh = undefined;
      state.rotateRefreshTokens = true;
      state.reuses = [];
    },
    close: async () => {},
  };

  const accessTokens = new Set<string>();
  /** Tokens of a new grant, or of `grant` with its refresh token `keep` (not rotated). */
  const issue = (scope: string, grant = ++grantCounter, keep?: string) => {
    counter += 1;
    accessTokens.add(`access-${counter}`);
    const refresh = keep ?? `refresh-${counter}-${randomBytes(4).toString('hex')}`;
    refreshTokens.set(refresh, grant);
    return {
      access_token: `access-${counter}`,
      refresh_token: refresh,
      token_type: 'bearer',
      expires_in: state.expiresIn,
      scope,
    };
  };

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', state.url);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/authorize') {
      const p = url.searchParams;
      if (p.get('client_id') !== CLIENT_ID || p.get('code_challenge_method') !== 'S256' || !p.get('state')) {
        return json(400, { error: 'invalid_request' });
      }
      const code = `code-${randomBytes(6).toString('hex')}`;
      codes.set(code, {
        challenge: p.get('code_challenge')!,
        redirectUri: p.get('redirect_uri')!,
        scope: p.get('scope') ?? '',
      });
      const back = new URL(p.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', p.get('state')!);
      res.writeHead(302, { location: back.href });
      return res.end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      let text = '';
      for await (const chunk of req) text += chunk;
      const form = new URLSearchParams(text);
      const grant = form.get('grant_type') ?? '';
      state.grants.push({
        grant_type: grant,
        ...(form.get('refresh_token') ? { refresh_token: form.get('refresh_token')! } : {}),
      });
      if (!(await survived(state.beforeAnswer?.(grant)))) return res.socket?.destroy();
      if (
        state.refuseClient ||
        form.get('client_id') !== CLIENT_ID ||
        form.get('client_secret') !== CLIENT_SECRET
      ) {
        return json(401, { error: 'invalid_client' });
      }
      if (grant === 'authorization_code') {
        const entry = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (!entry || entry.challenge !== challenge || entry.redirectUri !== form.get('redirect_uri')) {
          return json(400, { error: 'invalid_grant' });
        }
        return json(200, issue(entry.scope));
      }
      if (grant === 'refresh_token') {
        const token = form.get('refresh_token') ?? '';
        const reused = spent.get(token);
        if (reused !== undefined) {
          state.reuses.push(token);
          for (const [t, g] of refreshTokens) if (g === reused) refreshTokens.delete(t);
        }
        const family = refreshTokens.get(token);
        if (family === undefined || state.refuseRefresh) return json(400, { error: 'invalid_grant' });
        if (state.rotateRefreshTokens) {
          refreshTokens.delete(token);
          spent.set(token, family);
        }
        const issued = issue('items.read items.write', family, state.rotateRefreshTokens ? undefined : token);
        if (!(await survived(state.afterRefreshing?.()))) return res.socket?.destroy();
        return json(200, state.rewriteRefresh ? state.rewriteRefresh(issued) : issued);
      }
      return json(400, { error: 'unsupported_grant_type' });
    }
    if (url.pathname === '/whoami' && req.method === 'GET') {
      const authorization = req.headers.authorization;
      state.accountLookups.push({ path: url.pathname, ...(authorization ? { authorization } : {}) });
      const token = authorization?.replace(/^Bearer /, '') ?? '';
      if (!accessTokens.has(token)) return json(401, { error: { type: 'AUTHENTICATION_REQUIRED' } });
      const n = token.slice('access-'.length);
      return json(200, { id: `usr${n}`, email: `person-${n}@echo.example`, scopes: [] });
    }
    if (url.pathname === '/introspect' && req.method === 'POST') {
      let text = '';
      for await (const chunk of req) text += chunk;
      const form = Object.fromEntries(new URLSearchParams(text));
      state.accountLookups.push({ path: url.pathname, form });
      if (form.client_id !== CLIENT_ID || form.client_secret !== CLIENT_SECRET) {
        return json(401, { error: 'invalid_client' });
      }
      const token = form.token ?? '';
      if (!accessTokens.has(token)) return json(200, { active: false });
      const n = token.slice('access-'.length);
      return json(200, {
        active: true,
        user: `person-${n}@echo.example`,
        hub_domain: 'echo.example',
        hub_id: 42,
      });
    }
    if (url.pathname === '/revoke' && req.method === 'POST') {
      if (state.revokeFailure !== undefined) {
        req.resume();
        res.writeHead(state.revokeFailure, { 'content-type': 'text/html' });
        return res.end('<h1>Service Unavailable</h1>');
      }
      let text = '';
      for await (const chunk of req) text += chunk;
      const form = new URLSearchParams(text);
      if (!(await survived(state.beforeAnswer?.('revoke')))) return res.socket?.destroy();
      if (form.get('client_id') !== CLIENT_ID || form.get('client_secret') !== CLIENT_SECRET) {
        return json(401, { error: 'invalid_client' });
      }
      const token = form.get('token') ?? '';
      state.revocations.push({
        token,
        ...(form.get('token_type_hint') ? { token_type_hint: form.get('token_type_hint')! } : {}),
      });
      refreshTokens.delete(token);
      res.writeHead(200);
      return res.end();
    }
    json(404, { error: 'not_found' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.authorizeUrl = `${state.url}/authorize`;
  state.tokenUrl = `${state.url}/token`;
  state.revokeUrl = `${state.url}/revoke`;
  state.introspectUrl = `${state.url}/introspect`;
  state.whoamiUrl = `${state.url}/whoami`;
  state.close = async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return state;
}

/** Whether a hook let the request go on (false: it rejected, a fault that drops the connection). */
async function survived(hook: Promise<void> | undefined): Promise<boolean> {
  try {
    await hook;
    return true;
  } catch {
    return false;
  }
}

export const fakeClient = { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET };

/** The echo fixture's `echo-auth` provider, pointed at this fake server (plus any other settings). */
export function echoAuthProviders(oauth: FakeOAuthServer, extra: Partial<AuthProviderConfig> = {}) {
  return {
    'echo-auth': {
      clientId: fakeClient.clientId,
      authorizeUrl: oauth.authorizeUrl,
      tokenUrl: oauth.tokenUrl,
      ...extra,
    },
  };
}

/**
 * A user's `echo-auth` token as an authorization would have stored it: minted by the fake
 * server (so its refresh token is good there) and kept in `store`.
 */
export async function storeAuthorized(
  oauth: FakeOAuthServer,
  store: TokenStore,
  userId: string,
  expiresAt: number,
): Promise<StoredToken> {
  const issued = oauth.mint('items.read');
  const token: StoredToken = {
    accessToken: issued.access_token,
    refreshToken: issued.refresh_token,
    expiresAt,
    scopes: ['items.read'],
  };
  // Set-up, not what is tested: on a loaded machine a healthy Redis replica's ack can come after
  // the host's ack timeout (store_unavailable, retryable), and the write is made again.
  const by = Date.now() + 30_000;
  for (;;) {
    try {
      await store.set('echo-auth', userId, token);
      return token;
    } catch (e) {
      if (!ToolError.isInstance(e) || e.info.code !== 'store_unavailable' || Date.now() > by) throw e;
      await new Promise((r) => setTimeout(r, 300));
    }
  }
}
