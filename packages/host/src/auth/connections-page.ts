import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { disconnect, isOAuthProvider, listConnections } from '../connections.js';
import type { Host } from '../host.js';
import type { Logger } from '../logger.js';
import type { AccessTokens } from './access-tokens.js';
import { cookieValue } from './cookies.js';
import { esc, page, readForm, redirect } from './html-pages.js';

export const CONNECTIONS_PATH = '/connections';
const COOKIE = 'toolhost_connections';
/** A signed-in page stays signed in for an hour. */
const MAX_AGE_SECONDS = 3600;
// Same-origin referrers, so that the page's own forms carry their Origin (with no-referrer,
// browsers send `Origin: null`, which could not be told from a sandboxed foreign frame).
const HEADERS = { 'referrer-policy': 'same-origin' };

export interface ConnectionsPageOptions {
  host: Host;
  accessTokens: AccessTokens;
  logger?: Logger;
  /** Cookies get `Secure` when users reach the host over HTTPS. */
  secureCookies: () => boolean;
  /**
   * The key that signs the sign-in cookie: the same on every replica when they share a store
   * (signed in on one, recognised on all), else one per process.
   */
  signingKey?: Buffer;
}

interface Viewer {
  user: string;
  operator: boolean;
}

/**
 * `/connections`: the page where a person sees the providers they are connected to (scopes,
 * expiry) and disconnects one. Browsers cannot send the MCP bearer token, so with access
 * tokens the page asks for it once and keeps the user in a signed, HttpOnly, SameSite=Strict
 * cookie; the operators (`http.operators`) see and end everyone's connections. Without access
 * tokens (loopback, one trusted person) that person is the operator.
 */
export function connectionsPage(options: ConnectionsPageOptions) {
  const routes = new ConnectionsRoutes(options);
  return { handle: routes.handle.bind(routes) };
}

class ConnectionsRoutes {
  private readonly cookies: SignInCookie;
  private readonly operators: Set<string>;

  constructor(private readonly o: ConnectionsPageOptions) {
    this.cookies = new SignInCookie(o.signingKey ?? randomBytes(32));
    this.operators = new Set(o.host.config.http?.operators ?? []);
  }

  /** Answers the request if it is one of the page's routes; false otherwise. */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    if (url.pathname !== CONNECTIONS_PATH && !url.pathname.startsWith(`${CONNECTIONS_PATH}/`)) return false;
    // Forms post from this page only: a cross-site form is refused even before SameSite applies.
    if (req.method === 'POST' && req.headers.origin && !sameOrigin(req)) {
      page(res, 403, 'Connections', 'This form may only be sent from the connections page.');
    } else if (url.pathname === CONNECTIONS_PATH && req.method === 'GET') {
      const who = this.viewer(req);
      if (!who) signIn(res, 200, 'Sign in with your access token to see your connections.');
      else await this.list(res, who);
    } else if (url.pathname === `${CONNECTIONS_PATH}/sign-in` && req.method === 'POST') {
      await this.signIn(req, res);
    } else if (url.pathname === `${CONNECTIONS_PATH}/disconnect` && req.method === 'POST') {
      await this.disconnect(req, res);
    } else {
      page(res, 404, 'Not found', 'No such page.');
    }
    return true;
  }

  /** The signed-in user, from the cookie; without access tokens, the local person. */
  private viewer(req: IncomingMessage): Viewer | undefined {
    const { host, accessTokens } = this.o;
    if (!accessTokens.enabled) return { user: host.config.defaultUserId, operator: true };
    const user = this.cookies.user(req.headers.cookie);
    return user === undefined ? undefined : { user, operator: this.operators.has(user) };
  }

  private async signIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await readForm(req);
    const user = this.o.accessTokens.userFor(`Bearer ${form?.get('access_token') ?? ''}`);
    if (!user) signIn(res, 401, 'That access token is not valid.');
    else redirect(res, 303, CONNECTIONS_PATH, this.cookies.issue(user, this.o.secureCookies()));
  }

  private async disconnect(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const who = this.viewer(req);
    const form = await readForm(req);
    const user = form?.get('user') ?? '';
    const provider = form?.get('provider') ?? '';
    if (!who) return signIn(res, 401, 'Sign in with your access token first.');
    if (user !== who.user && !who.operator)
      return page(res, 403, 'Connections', "Only an operator can end another user's connections.");
    if (!isOAuthProvider(this.o.host, provider)) {
      const known = this.o.host.oauthProviders.map((p) => p.id).join(', ') || 'none';
      return page(
        res,
        400,
        'Connections',
        `No OAuth provider '${provider}' is configured here (providers: ${known}).`,
        {
          headers: HEADERS,
          body: BACK,
        },
      );
    }
    let result: Awaited<ReturnType<typeof disconnect>>;
    try {
      result = await disconnect(this.o.host, user, provider);
    } catch (e) {
      this.o.logger?.error(
        { user, provider, by: who.user, err: (e as Error).message },
        'connection not ended',
      );
      return page(
        res,
        500,
        'Connections',
        `The connection of ${user} with ${provider} could not be ended; try again.`,
        {
          headers: HEADERS,
          body: BACK,
        },
      );
    }
    this.o.logger?.info(
      {
        user,
        provider,
        by: who.user,
        revokedAtVendor: result.revokedAtVendor,
        ...(result.vendorFailure ? { vendorFailure: result.vendorFailure } : {}),
      },
      'connection ended',
    );
    // Answered here rather than redirected: what happened at the vendor is what the person
    // must read, above the list.
    await this.list(res, who, { ok: !result.vendorFailure, text: outcomeText(user, provider, result) });
  }

  private async list(
    res: ServerResponse,
    who: Viewer,
    notice?: { ok: boolean; text: string },
  ): Promise<void> {
    const rows = await listConnections(this.o.host, who.operator ? {} : { userId: who.user });
    const cells = rows
      .map((r) => {
        const expiry = r.expiresAt ? new Date(r.expiresAt).toISOString() : 'does not expire';
        return `<tr><td>${esc(r.userId)}</td><td>${esc(r.providerId)}</td><td>${esc(r.scopes.join(' '))}</td><td>${esc(expiry)}</td><td><form method="post" action="${CONNECTIONS_PATH}/disconnect"><input type="hidden" name="user" value="${esc(r.userId)}"><input type="hidden" name="provider" value="${esc(r.providerId)}"><button type="submit">Disconnect</button></form></td></tr>`;
      })
      .join('');
    const table = rows.length
      ? `<table><thead><tr><th>User</th><th>Provider</th><th>Scopes</th><th>Access token expires</th><th></th></tr></thead><tbody>${cells}</tbody></table>`
      : '<p id="none">No connections.</p>';
    page(
      res,
      200,
      'Connections',
      who.operator
        ? `Signed in as ${who.user} (operator): every user's connections.`
        : `Signed in as ${who.user}: your connections.`,
      {
        body: `${notice ? `<p id="notice" role="${notice.ok ? 'status' : 'alert'}">${esc(notice.text)}</p>` : ''}${table}`,
        headers: HEADERS,
      },
    );
  }
}

const BACK = `<p><a href="${CONNECTIONS_PATH}">Back to the connections</a></p>`;

/** What ending a connection did, here and at the vendor, as the person should read it. */
function outcomeText(
  user: string,
  provider: string,
  result: { existed: boolean; revokedAtVendor: boolean; vendorFailure?: string },
): string {
  if (!result.existed) return `${user} had no connection with ${provider} (already ended).`;
  if (result.revokedAtVendor)
    return `Disconnected ${user} from ${provider}: the grant was revoked at the vendor and the tokens deleted here.`;
  if (result.vendorFailure)
    return `Disconnected ${user} from ${provider} here, but revoking the grant at the vendor failed (${result.vendorFailure}): the grant may still be alive there. To end it, remove this app's access in the account's settings at the vendor.`;
  return `Disconnected ${user} from ${provider}: the tokens are deleted here. ${provider} offers no revocation, so the grant stays at the vendor until it expires or is removed in the account's settings there.`;
}

/** The signed sign-in cookie: the user and an expiry, with an HMAC over both. */
class SignInCookie {
  constructor(private readonly key: Buffer) {}

  private sign(user: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${user}\n${expires}`).digest('base64url');
  }

  issue(user: string, secure: boolean): string {
    const expires = Math.floor(Date.now() / 1000) + MAX_AGE_SECONDS;
    const value = `${Buffer.from(user).toString('base64url')}.${expires}.${this.sign(user, expires)}`;
    return `${COOKIE}=${value}; Path=${CONNECTIONS_PATH}; Max-Age=${MAX_AGE_SECONDS}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
  }

  /** The user a valid, unexpired cookie names; undefined otherwise. */
  user(cookieHeader: string | undefined): string | undefined {
    const raw = cookieValue(cookieHeader, COOKIE);
    const [encoded, expiresText, mac] = (raw ?? '').split('.');
    if (!encoded || !expiresText || !mac) return undefined;
    const user = Buffer.from(encoded, 'base64url').toString('utf8');
    const expires = Number(expiresText);
    const expected = Buffer.from(this.sign(user, expires));
    const presented = Buffer.from(mac);
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined;
    return expires > Date.now() / 1000 ? user : undefined;
  }
}

function signIn(res: ServerResponse, status: number, text: string): void {
  page(res, status, 'Connections', text, {
    headers: HEADERS,
    body: `<form method="post" action="${CONNECTIONS_PATH}/sign-in"><label>Access token <input type="password" name="access_token" autocomplete="off" required></label> <button type="submit">Sign in</button></form>`,
  });
}

function sameOrigin(req: IncomingMessage): boolean {
  try {
    return new URL(req.headers.origin ?? '').host === req.headers.host;
  } catch {
    return false;
  }
}
