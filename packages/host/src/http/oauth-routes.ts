import type { IncomingMessage, ServerResponse } from 'node:http';
import { ToolError } from '@toolhost/core';
import {
  CALLBACK_PATH_PREFIX,
  OAuthCallbackError,
  type PendingFlow,
  type SignInProvider,
  START_PATH_PREFIX,
} from '@toolhost/credentials';
import type { AccessTokens } from '../auth/access-tokens.js';
import type { Logger } from '../logger.js';
import { FlowBinding } from './flow-binding.js';
import { esc, page, readForm, redirect, STYLE_SRC } from './html-pages.js';

export interface OAuthRoutesOptions {
  providers: readonly SignInProvider[];
  /** With access tokens, a browser is bound to a flow only after its user confirms with theirs. */
  accessTokens: AccessTokens;
  logger?: Logger;
  /** Origins the host's own pages are served from (a confirmation form must be posted from one). */
  ownOrigins: (req: IncomingMessage) => string[];
  /** Cookies get `Secure` when users reach the host over HTTPS. */
  secureCookies: () => boolean;
  /**
   * The key that signs flow cookies: the same on every replica when they share a store (a
   * browser bound on one replica is recognised on another), else one per process.
   */
  bindingKey?: Buffer;
  /**
   * Where OAuth is the front door: a link is bound only to a browser signed in (on the
   * connections page) as the user who started the flow; this is that page's address for it.
   */
  signedInBinding?: (provider: string, flowId: string) => string;
  /**
   * Told when a flow completed here, before the browser is answered: with replicas, the
   * completion notice of the MCP session waiting for it is stored for that session.
   */
  completed?: (flowId: string) => Promise<void>;
}

/** Which route and provider a path names; a page already answered when it names none usable. */
type Route = { kind: 'start' | 'callback'; provider: SignInProvider };

/**
 * The browser side of OAuth: `/oauth/start/<provider>?flow=…` (the link handed to the user)
 * binds the browser to the flow and redirects to the authorization server, and
 * `/oauth/callback/<provider>` completes the flow only in that browser. With access tokens,
 * binding first asks for the access token of the user who started the flow; without them
 * (loopback, one trusted user) the first browser to open the link is bound.
 */
export function oauthRoutes(options: OAuthRoutesOptions) {
  const routes = new OAuthRoutes(options);
  return { handle: routes.handle.bind(routes), bindSignedIn: routes.bindSignedIn.bind(routes) };
}

class OAuthRoutes {
  private readonly providers: Map<string, SignInProvider>;
  private readonly binding: FlowBinding;

  constructor(private readonly o: OAuthRoutesOptions) {
    this.providers = new Map(o.providers.map((p) => [p.id, p]));
    this.binding = new FlowBinding(o.bindingKey);
  }

  /** Answers the request if it is one of these routes; false otherwise. */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const route = this.route(url, res);
    if (route === false) return false;
    if (route === undefined) return true;
    const { kind, provider } = route;
    try {
      if (kind === 'callback' && req.method === 'GET') await this.callback(provider, url, req, res);
      else if (kind === 'start' && req.method === 'POST' && this.o.accessTokens.enabled)
        await this.confirm(provider, req, res);
      else if (kind === 'start' && req.method === 'GET') await this.openLink(provider, url, req, res);
      else page(res, 405, 'Method not allowed', 'This page is for a browser to open.');
    } catch (e) {
      // Pending flows live in the shared store: while it is away, the page says so.
      if (!storeUnavailable(e) || res.headersSent) throw e;
      page(
        res,
        503,
        'Try again shortly',
        'The host cannot reach its shared store right now; reload this page in a moment.',
      );
    }
    return true;
  }

  /** The route a path names; false when it is none of these, undefined when answered (bad provider). */
  private route(url: URL, res: ServerResponse): Route | false | undefined {
    const kind = url.pathname.startsWith(START_PATH_PREFIX)
      ? 'start'
      : url.pathname.startsWith(CALLBACK_PATH_PREFIX)
        ? 'callback'
        : undefined;
    if (!kind) return false;
    const prefix = kind === 'start' ? START_PATH_PREFIX : CALLBACK_PATH_PREFIX;
    let providerId: string;
    try {
      providerId = decodeURIComponent(url.pathname.slice(prefix.length));
    } catch {
      // Malformed percent-encoding is the client's mistake, not the host's.
      page(res, 400, 'Bad request', 'The provider in this address is not valid percent-encoding.');
      return undefined;
    }
    const provider = this.providers.get(providerId);
    if (provider) return { kind, provider };
    page(res, 404, 'Unknown provider', `No OAuth provider '${providerId}' is configured.`);
    return undefined;
  }

  /** `GET /oauth/start/<provider>?flow=…`: the link the user was handed. */
  private async openLink(
    provider: SignInProvider,
    url: URL,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    const flow = await provider.signIn.pendingFlow(url.searchParams.get('flow') ?? '');
    if (!flow) return expired(res);
    // The same browser coming back (a reload, a second try) goes on without asking again.
    if (this.binding.isBound(req.headers.cookie, flow)) return redirect(res, 302, flow.authorizeUrl);
    if (this.o.signedInBinding) return redirect(res, 303, this.o.signedInBinding(provider.id, flow.flowId));
    if (this.o.accessTokens.enabled) return confirmationPage(provider, flow, res);
    if (flow.opened) {
      return page(
        res,
        403,
        'Link already used',
        'This authorization link was opened in another browser; call the tool again for a new one.',
      );
    }
    await this.bind(provider, flow, res, 302);
  }

  /**
   * Binds the browser of a person signed in (through the front door) as `user` to their flow;
   * a page already answered when the flow is unknown or another user's.
   */
  async bindSignedIn(res: ServerResponse, providerId: string, flowId: string, user: string): Promise<void> {
    const provider = this.providers.get(providerId);
    const flow = provider && (await provider.signIn.pendingFlow(flowId));
    if (!provider || !flow) return expired(res);
    await this.bindOwner(
      provider,
      flow,
      user,
      res,
      'You are signed in as another user than the one who started this authorization.',
    );
  }

  /** Binds the browser when `user` started the flow; else refuses with `refusal`. */
  private async bindOwner(
    provider: SignInProvider,
    flow: PendingFlow,
    user: string | undefined,
    res: ServerResponse,
    refusal: string,
  ): Promise<void> {
    if (user !== flow.userId) {
      this.o.logger?.warn({ provider: provider.id }, 'authorization confirmation refused');
      return page(res, 403, 'Not your authorization', refusal);
    }
    await this.bind(provider, flow, res, 303);
  }

  /** Binds this browser to the flow and sends it on to the authorization server. */
  private async bind(
    provider: SignInProvider,
    flow: PendingFlow,
    res: ServerResponse,
    status: number,
  ): Promise<void> {
    await provider.signIn.markOpened(flow.flowId);
    redirect(res, status, flow.authorizeUrl, this.binding.cookie(flow, this.o.secureCookies()));
  }

  /** `POST /oauth/start/<provider>`: the user confirms with their access token that the flow is theirs. */
  private async confirm(provider: SignInProvider, req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A form posted from another site could bind the victim's browser to the attacker's flow.
    const origin = req.headers.origin;
    if (
      (origin !== undefined && !this.o.ownOrigins(req).includes(origin)) ||
      req.headers['sec-fetch-site'] === 'cross-site'
    ) {
      return page(res, 403, 'Not allowed', 'This confirmation must be sent from the host’s own page.');
    }
    const form = await readForm(req);
    const flow = form && (await provider.signIn.pendingFlow(form.get('flow') ?? ''));
    if (!form || !flow) return expired(res);
    const user = this.o.accessTokens.userForToken(form.get('access_token') ?? '');
    await this.bindOwner(
      provider,
      flow,
      user,
      res,
      'That access token does not belong to the user who started this authorization.',
    );
  }

  /** `GET /oauth/callback/<provider>`: the authorization server sends the browser back. */
  private async callback(
    provider: SignInProvider,
    url: URL,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    const log = this.o.logger;
    try {
      const { flow, userId } = await provider.signIn.complete(url.searchParams, (f) =>
        this.binding.isBound(req.headers.cookie, f),
      );
      log?.info({ provider: provider.id, user: userId }, 'authorization completed');
      // The token is stored: a notice lost to the store costs the client only the prompt.
      await this.o
        .completed?.(flow.flowId)
        .catch((e: unknown) =>
          log?.warn(
            { provider: provider.id, err: (e as Error).message },
            'completion notice not stored (shared store unreachable): the client learns of it at its next call',
          ),
        );
      page(res, 200, 'Authorization complete', 'You can close this window and return to your agent.', {
        headers: { 'set-cookie': this.binding.clear(flow, this.o.secureCookies()) },
      });
    } catch (e) {
      if (storeUnavailable(e)) throw e;
      const known = OAuthCallbackError.isInstance(e);
      const message = known ? e.message : 'The authorization could not be completed.';
      log?.warn({ provider: provider.id, reason: message }, 'authorization failed');
      page(res, known ? e.status : 400, 'Authorization failed', message);
    }
  }
}

const storeUnavailable = (e: unknown) => ToolError.isInstance(e) && e.code === 'store_unavailable';

function expired(res: ServerResponse): void {
  page(
    res,
    400,
    'Link expired',
    'This authorization link is unknown or has expired; call the tool again for a new one.',
  );
}

function confirmationPage(provider: SignInProvider, flow: PendingFlow, res: ServerResponse): void {
  page(
    res,
    200,
    `Authorize ${provider.id}`,
    'To continue, enter the access token your agent uses with this host (it proves that this authorization is yours).',
    {
      body: `<form method="post" action="${esc(encodeURIComponent(provider.id))}"><input type="hidden" name="flow" value="${esc(flow.flowId)}"><label>Access token <input type="password" name="access_token" autocomplete="off" required></label> <button type="submit">Continue</button></form>`,
      headers: {
        // A real browser sends \`Origin: null\` from a no-referrer page, which the origin check
        // refuses; and the form's answer redirects to the authorization server, which
        // form-action must allow.
        'referrer-policy': 'same-origin',
        'content-security-policy': `default-src 'none'; ${STYLE_SRC}; form-action 'self' ${new URL(flow.authorizeUrl).origin}; frame-ancestors 'none'`,
      },
    },
  );
}
