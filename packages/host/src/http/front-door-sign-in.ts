import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isLoopbackUrl } from '@toolhost/front-door/issuer-metadata';
import * as oauth from 'oauth4webapi';
import type { Logger } from '../logger.js';
import { cookieValue } from './cookies.js';
import { esc, page, redirect, STYLE_SRC } from './html-pages.js';
import { PAGES_CALLBACK_PATH } from './page-paths.js';

/** The pages' client id at the host's own authorization server (a built-in, first-party client). */
export const PAGES_CLIENT_ID = 'toolhost-pages';

const STATE_COOKIE = 'toolhost_pages_sign_in';
/** A sign-in at the authorization server may take this long. */
const STATE_MAX_AGE_SECONDS = 600;

export interface FrontDoorSignInOptions {
  /** The authorization server's endpoints (discovered, or the host's own). */
  server: () => Promise<oauth.AuthorizationServer>;
  clientId: string;
  clientSecret?: string;
  /** The resource (RFC 8707) the token is asked for: the MCP endpoint, whose door then checks it. */
  resource: () => string;
  /** The scope asked for: the least the door knows (reading tools); the token is dropped once read. */
  scope: string;
  /** The URL browsers reach the host at. */
  base: () => string;
  /** The token's user by the MCP endpoint's own check (issuer, audience, expiry, subject claim); undefined when refused. */
  userOf: (accessToken: string) => Promise<string | undefined>;
  secureCookies: () => boolean;
  /** Signs the state cookie (the same on every replica where they share a store). */
  key: Buffer;
  logger?: Logger;
}

/**
 * The host's pages (`/connections`) as an OAuth client of the authorization server the MCP
 * endpoint trusts: authorization code with PKCE (S256), the state and verifier in a signed,
 * HttpOnly cookie of this browser, the code redeemed at the exact redirect URI, and the access
 * token checked as the MCP endpoint checks it, so that the person signed in here is the user
 * their tool calls run as.
 */
export class FrontDoorSignIn {
  constructor(private readonly o: FrontDoorSignInOptions) {}

  private redirectUri(): string {
    return `${this.o.base().replace(/\/$/, '')}${PAGES_CALLBACK_PATH}`;
  }

  /** Sends the browser to the authorization server; `returnTo` (a /connections path) is where it lands after. */
  async start(res: ServerResponse, returnTo: string): Promise<void> {
    let server: oauth.AuthorizationServer;
    try {
      server = await this.o.server();
    } catch (e) {
      this.o.logger?.warn({ err: (e as Error).message }, 'sign-in: authorization server unavailable');
      return page(
        res,
        503,
        'Try again shortly',
        'The sign-in service cannot be reached right now; reload this page in a moment.',
      );
    }
    if (!server.authorization_endpoint)
      return page(
        res,
        503,
        'Sign-in unavailable',
        'The authorization server names no authorization endpoint.',
      );
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const target = new URL(server.authorization_endpoint);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: this.o.clientId,
      redirect_uri: this.redirectUri(),
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      scope: this.o.scope,
      resource: this.o.resource(),
    }))
      target.searchParams.set(name, value);
    redirect(res, 303, target.href, this.stateCookie({ state, verifier, returnTo }));
  }

  /**
   * `GET /connections/callback`: the user of the code the authorization server sent back, only
   * in the browser that started the sign-in (its state cookie); a page already answered otherwise.
   */
  async callback(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
  ): Promise<{ user: string; returnTo: string } | undefined> {
    const started = this.readState(req.headers.cookie);
    const clear = this.clearState();
    const given = url.searchParams.get('state') ?? '';
    if (!started || !sameText(given, started.state)) {
      this.o.logger?.warn('sign-in refused: state does not match this browser');
      page(
        res,
        400,
        'Sign-in failed',
        'This sign-in was not started in this browser, or it expired; start again from the connections page.',
        {
          headers: { 'set-cookie': clear },
        },
      );
      return undefined;
    }
    const failed = (reason: string) => {
      this.o.logger?.warn({ reason }, 'sign-in failed');
      page(
        res,
        403,
        'Sign-in failed',
        'The sign-in could not be completed; start again from the connections page.',
        {
          headers: { 'set-cookie': clear },
        },
      );
      return undefined;
    };
    try {
      const user = await this.userOfCode(url, started);
      if (user === undefined) return failed('the access token was refused by the front door');
      return { user, returnTo: started.returnTo };
    } catch (e) {
      return failed((e as Error).message);
    }
  }

  /** Redeems the code the authorization server sent back (PKCE, the MCP resource), and checks its access token at the front door. */
  private async userOfCode(
    url: URL,
    started: { state: string; verifier: string },
  ): Promise<string | undefined> {
    const server = await this.o.server();
    const client: oauth.Client = { client_id: this.o.clientId };
    const auth = this.o.clientSecret ? oauth.ClientSecretBasic(this.o.clientSecret) : oauth.None();
    const params = oauth.validateAuthResponse(server, client, url.searchParams, started.state);
    const insecure = isLoopbackUrl(server.issuer) ? { [oauth.allowInsecureRequests]: true } : {};
    const response = await oauth.authorizationCodeGrantRequest(
      server,
      client,
      auth,
      params,
      this.redirectUri(),
      started.verifier,
      {
        additionalParameters: { resource: this.o.resource() },
        signal: AbortSignal.timeout(10_000),
        ...insecure,
      },
    );
    const tokens = await oauth.processAuthorizationCodeResponse(server, client, response);
    return this.o.userOf(tokens.access_token);
  }

  /** The Set-Cookie value that drops the state cookie. */
  clearState(): string {
    return `${STATE_COOKIE}=; ${this.attributes()}; Max-Age=0`;
  }

  // Lax: the authorization server's redirect back is a top-level navigation from its site.
  private attributes(): string {
    return `Path=${PAGES_CALLBACK_PATH}; HttpOnly; SameSite=Lax${this.o.secureCookies() ? '; Secure' : ''}`;
  }

  private mac(text: string): string {
    return createHmac('sha256', this.o.key).update(`pages sign-in\n${text}`).digest('base64url');
  }

  private stateCookie(value: { state: string; verifier: string; returnTo: string }): string {
    const body = Buffer.from(
      JSON.stringify({ ...value, exp: Math.floor(Date.now() / 1000) + STATE_MAX_AGE_SECONDS }),
    ).toString('base64url');
    return `${STATE_COOKIE}=${body}.${this.mac(body)}; ${this.attributes()}; Max-Age=${STATE_MAX_AGE_SECONDS}`;
  }

  private readState(cookieHeader: string | undefined) {
    const [body, mac] = (cookieValue(cookieHeader, STATE_COOKIE) ?? '').split('.');
    if (!body || !mac || !sameText(mac, this.mac(body))) return undefined;
    try {
      const value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as {
        state: string;
        verifier: string;
        returnTo: string;
        exp: number;
      };
      return value.exp > Date.now() / 1000 ? value : undefined;
    } catch {
      return undefined;
    }
  }
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The answer to a completed sign-in: the cookie set, then on to the page by the browser's own
 * navigation (a page of ours, not the authorization server, starts it, so that the strict
 * same-site sign-in cookie goes with it even where the authorization server is another site).
 */
export function signedInPage(res: ServerResponse, returnTo: string, cookies: string[]): void {
  const target = esc(returnTo);
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': `default-src 'none'; ${STYLE_SRC}; frame-ancestors 'none'`,
    'referrer-policy': 'no-referrer',
    'set-cookie': cookies,
  });
  res.end(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${target}"><title>Signed in</title></head><body><p>Signed in. <a href="${target}">Continue</a></p></body></html>`,
  );
}

/** Where a sign-in may return to: the connections pages only (never another site). */
export function safeReturnPath(path: string | null | undefined, fallback: string): string {
  const ours = /^\/connections(?:[/?]|$)/.test(path ?? '') && !path?.includes('\\');
  return ours && path ? path : fallback;
}
