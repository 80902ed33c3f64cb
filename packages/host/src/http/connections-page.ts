import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MemoryStateStore, type StateStore } from '@toolhost/authorization-server/state-store';
import type { AccessTokens } from '../auth/access-tokens.js';
import type { ProviderService } from '../auth/provider-services.js';
import type { DisconnectResult } from '../connections.js';
import type { Host } from '../host-api.js';
import type { Logger } from '../logger.js';
import {
  CONNECTIONS_CSP,
  confirmDisconnect,
  connectionsTable,
  connectLinks,
  SIGN_OUT_FORM,
} from './connections-view.js';
import { type FrontDoorSignIn, safeReturnPath, signedInPage } from './front-door-sign-in.js';
import { esc, page, readForm, redirect } from './html-pages.js';
import { CONNECTIONS_PATH, isConnectionsPath, PAGES_CALLBACK_PATH } from './page-paths.js';
import { SignInCookie } from './sign-in-cookie.js';

const COOKIE = 'toolhost_connections';
/** A signed-in page stays signed in for an hour. */
const MAX_AGE_SECONDS = 3600;
// Same-origin referrers, so that the page's own forms carry their Origin (with no-referrer,
// browsers send `Origin: null`, which could not be told from a sandboxed foreign frame).
const HEADERS = { 'referrer-policy': 'same-origin', 'content-security-policy': CONNECTIONS_CSP };

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
  /** Where sign-outs are kept: the replicas' store where there is one (default: this process). */
  signedOut?: StateStore;
  /** Where OAuth is configured: people sign in through the front door (the MCP endpoint's authorization server). */
  frontDoor?: FrontDoorSignIn;
  /** Binds this browser to a vendor authorization link of the signed-in user (`/oauth/start`). */
  bindFlow?: (res: ServerResponse, provider: string, flowId: string, user: string) => Promise<void>;
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
    this.cookies = new SignInCookie(
      o.signingKey ?? randomBytes(32),
      o.accessTokens,
      o.signedOut ?? new MemoryStateStore(),
      COOKIE,
      CONNECTIONS_PATH,
      MAX_AGE_SECONDS,
      o.frontDoor !== undefined,
    );
    this.operators = new Set(o.host.config.http?.operators ?? []);
  }

  /** Answers the request if it is one of the page's routes; false otherwise. */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    if (!isConnectionsPath(url.pathname)) return false;
    // Forms post from this page only: a cross-site form is refused even before SameSite applies.
    if (req.method === 'POST' && req.headers.origin && !sameOrigin(req)) {
      page(res, 403, 'Connections', 'This form may only be sent from the connections page.');
    } else if (url.pathname === CONNECTIONS_PATH && isGet(req)) {
      const who = await this.viewer(req);
      if (!who)
        await this.askToSignIn(res, url, 200, 'Sign in with your access token to see your connections.');
      else await this.list(res, who, endedNotice(url, this.services()));
    } else if (url.pathname === PAGES_CALLBACK_PATH && isGet(req) && this.o.frontDoor) {
      await this.signedInAtDoor(req, res, url, this.o.frontDoor);
    } else if (url.pathname === `${CONNECTIONS_PATH}/sign-in` && isGet(req)) {
      // Static access tokens keep working beside the front door (headless users, robots).
      signIn(res, 200, 'Sign in with your access token to see your connections.');
    } else if (url.pathname === `${CONNECTIONS_PATH}/authorize` && isGet(req) && this.o.bindFlow) {
      await this.authorizeLink(req, res, url, this.o.bindFlow);
    } else if (url.pathname === `${CONNECTIONS_PATH}/sign-in` && req.method === 'POST') {
      await this.signIn(req, res);
    } else if (url.pathname === `${CONNECTIONS_PATH}/disconnect` && req.method === 'POST') {
      await this.disconnect(req, res);
    } else if (url.pathname === `${CONNECTIONS_PATH}/disconnect` && isGet(req)) {
      await this.askToDisconnect(req, res, url);
    } else if (url.pathname === `${CONNECTIONS_PATH}/connect` && isGet(req)) {
      await this.connect(req, res, url);
    } else if (url.pathname === `${CONNECTIONS_PATH}/sign-out` && req.method === 'POST') {
      // Ended here, not only in this browser: a copy of the cookie stops working too.
      await this.cookies.signOut(req.headers.cookie);
      redirect(res, 303, CONNECTIONS_PATH, this.cookies.clear(this.o.secureCookies()));
    } else {
      page(res, 404, 'Not found', 'No such page.');
    }
    return true;
  }

  /** `GET /connections/callback`: the front door's answer; signs the browser in as the token's user. */
  private async signedInAtDoor(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    door: FrontDoorSignIn,
  ): Promise<void> {
    const done = await door.callback(req, res, url);
    if (!done) return;
    const cookie = this.cookies.issue(done.user, this.o.secureCookies());
    if (!cookie) return page(res, 403, 'Connections', 'This user cannot sign in here.');
    this.o.logger?.info({ user: done.user }, 'signed in to the connections page');
    signedInPage(res, safeReturnPath(done.returnTo, CONNECTIONS_PATH), [cookie, door.clearState()]);
  }

  /** `GET /connections/authorize?provider=…&flow=…`: a vendor link, bound to this browser once its person is signed in as the flow's user. */
  private async authorizeLink(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    bindFlow: NonNullable<ConnectionsPageOptions['bindFlow']>,
  ): Promise<void> {
    const who = await this.viewer(req);
    if (!who) return this.askToSignIn(res, url);
    await bindFlow(res, url.searchParams.get('provider') ?? '', url.searchParams.get('flow') ?? '', who.user);
  }

  /** Not signed in: through the front door, back to this page after; else the access token form. */
  private async askToSignIn(
    res: ServerResponse,
    url: URL,
    status = 401,
    text = 'Sign in with your access token first.',
  ): Promise<void> {
    if (this.o.frontDoor) return this.o.frontDoor.start(res, `${url.pathname}${url.search}`);
    if (!this.o.accessTokens.issued)
      // OAuth guards the MCP endpoint, but the pages have no client at the identity provider: a
      // token form here could never be completed, so say what the operator has to set.
      return page(res, 503, 'Connections', CANNOT_SIGN_IN, { headers: HEADERS });
    signIn(res, status, text);
  }

  /** The signed-in user, from the cookie; without access tokens, the local person. */
  private async viewer(req: IncomingMessage): Promise<Viewer | undefined> {
    const { host, accessTokens } = this.o;
    if (!accessTokens.enabled) return { user: host.config.defaultUserId, operator: true };
    const user = await this.cookies.user(req.headers.cookie);
    return user === undefined ? undefined : { user, operator: this.operators.has(user) };
  }

  private services(): Map<string, ProviderService> {
    this.serviceNames ??= this.o.host.serving.providerServices();
    return this.serviceNames;
  }

  private serviceNames?: Map<string, ProviderService>;

  /** `GET /connections/disconnect?user=…&provider=…`: asks before ending a connection. */
  private async askToDisconnect(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const who = await this.viewer(req);
    if (!who) return this.askToSignIn(res, url);
    const user = url.searchParams.get('user') ?? '';
    const provider = url.searchParams.get('provider') ?? '';
    const service = this.services().get(provider)?.name ?? provider;
    page(res, 200, `Disconnect ${service}?`, `Disconnect ${user} from ${service}?`, {
      headers: HEADERS,
      body: confirmDisconnect(user, provider, service, user === who.user),
    });
  }

  /** `GET /connections/connect?provider=…`: starts an authorization for the signed-in user. */
  private async connect(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const who = await this.viewer(req);
    if (!who) return this.askToSignIn(res, url);
    const id = url.searchParams.get('provider') ?? '';
    const provider = this.o.host.oauthProviders.find((p) => p.id === id);
    if (!provider) return this.unknownProvider(res, id);
    const flow = await provider.signIn.start(who.user, this.services().get(id)?.scopes ?? []);
    redirect(res, 303, flow.url);
  }

  private unknownProvider(res: ServerResponse, id: string): void {
    const known = this.o.host.oauthProviders.map((p) => p.id).join(', ') || 'none';
    const text = `No OAuth provider '${id}' is configured here (providers: ${known}).`;
    page(res, 400, 'Connections', text, { headers: HEADERS, body: BACK });
  }

  private async signIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await readForm(req);
    const user = this.o.accessTokens.userFor(`Bearer ${form?.get('access_token') ?? ''}`);
    const cookie = user === undefined ? undefined : this.cookies.issue(user, this.o.secureCookies());
    if (!cookie) signIn(res, 401, 'That access token is not valid.');
    else redirect(res, 303, CONNECTIONS_PATH, cookie);
  }

  private async disconnect(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const who = await this.viewer(req);
    const form = await readForm(req);
    const user = form?.get('user') ?? '';
    const provider = form?.get('provider') ?? '';
    if (!who) return signIn(res, 401, 'Sign in with your access token first.');
    if (user !== who.user && !who.operator)
      return page(res, 403, 'Connections', "Only an operator can end another user's connections.");
    if (!this.o.host.serving.connections.isOAuthProvider(provider))
      return this.unknownProvider(res, provider);
    let result: DisconnectResult;
    try {
      result = await this.o.host.serving.connections.disconnect(user, provider);
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
    // Redirected, so that a reload shows the list again rather than sending the form twice;
    // what happened at the vendor travels in the address, for the list to say above itself.
    redirect(
      res,
      303,
      `${CONNECTIONS_PATH}?${new URLSearchParams({ ended: provider, user, outcome: outcomeOf(result) })}`,
    );
  }

  private async list(
    res: ServerResponse,
    who: Viewer,
    notice?: { ok: boolean; text: string },
  ): Promise<void> {
    const rows = await this.o.host.serving.connections.list(who.operator ? {} : { userId: who.user });
    const table = connectionsTable(rows, this.services(), who.operator);
    const signOut = this.o.accessTokens.enabled ? SIGN_OUT_FORM : '';
    page(
      res,
      200,
      'Connections',
      who.operator
        ? `Signed in as ${who.user} (operator): every user's connections.`
        : `Signed in as ${who.user}: your connections.`,
      {
        body: `${signOut}${notice ? `<p id="notice" role="${notice.ok ? 'status' : 'alert'}">${esc(notice.text)}</p>` : ''}${table}${connectLinks(this.services())}`,
        headers: HEADERS,
      },
    );
  }
}

const BACK = `<p><a href="${CONNECTIONS_PATH}">Back to the connections</a></p>`;

const OUTCOMES = ['none', 'revoked', 'failed', 'local'] as const;
type Outcome = (typeof OUTCOMES)[number];

function outcomeOf(result: { existed: boolean; revokedAtVendor: boolean; vendorFailure?: string }): Outcome {
  if (!result.existed) return 'none';
  if (result.revokedAtVendor) return 'revoked';
  return result.vendorFailure ? 'failed' : 'local';
}

/** What ending a connection did, here and at the vendor, as the person should read it (the vendor by name). */
function outcomeText(user: string, service: string, outcome: Outcome): string {
  if (outcome === 'none') return `${user} had no connection with ${service} (already ended).`;
  if (outcome === 'revoked')
    return `Disconnected ${user} from ${service}: the grant was revoked at ${service} and the tokens deleted here.`;
  if (outcome === 'failed')
    return `Disconnected ${user} from ${service} here, but revoking the grant at ${service} failed (the host's log says why): the grant may still be alive there. To end it, remove this app's access in the account's settings at ${service}.`;
  return `Disconnected ${user} from ${service}: the tokens are deleted here. ${service} offers no revocation, so the grant stays there until it expires or is removed in the account's settings.`;
}

/** The notice of a connection just ended, from the address the disconnect redirected to. */
function endedNotice(
  url: URL,
  services: ReadonlyMap<string, ProviderService>,
): { ok: boolean; text: string } | undefined {
  const provider = url.searchParams.get('ended');
  const outcome = url.searchParams.get('outcome') as Outcome | null;
  if (!provider || !outcome || !OUTCOMES.includes(outcome)) return undefined;
  const service = services.get(provider)?.name ?? provider;
  return {
    ok: outcome !== 'failed',
    text: outcomeText(url.searchParams.get('user') ?? '', service, outcome),
  };
}

/** HEAD is answered as GET (Node sends the headers only). */
function isGet(req: IncomingMessage): boolean {
  return req.method === 'GET' || req.method === 'HEAD';
}

const CANNOT_SIGN_IN =
  "Nobody can sign in to this page yet: the operator sets http.authorization.pagesClient (a client registered at the identity provider, with this host's /connections/callback as its redirect URI), or gives people access tokens.";

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
