import type { IncomingMessage, ServerResponse } from 'node:http';
import { ToolError } from '@toolhost/core';
import { answerTargetNote } from './answer-target.js';
import { redirectWithError, startAuthorization } from './authorize.js';
import { BrowserSessions, requireSameOrigin, requireToken, type SignedIn } from './browser-session.js';
import { within } from './caller-bounds.js';
import { type Client, ClientError, isMetadataDocumentId, shownText } from './clients.js';
import { type Context, isFirstPartyClient, PATHS } from './context.js';
import { BadRequest, readForm, redirect } from './http-util.js';
import { escapeHtml, hiddenFields, sendErrorPage, sendPage } from './pages.js';
import { type PendingRequest, PendingRequests } from './pending-requests.js';
import { TOO_MANY_AUTHORIZATIONS, TOO_MANY_SIGN_INS } from './person-bounds.js';
import { UpstreamSignInFlow } from './upstream-sign-in.js';

const FAILED_SIGN_INS = 10;
const FAILED_SIGN_IN_WINDOW = 300;

/**
 * The pages a person sees: the authorization endpoint sends the browser to sign in (unless
 * it is signed in), then to the consent page; consent issues the code at the redirect URI.
 * Every form is bound to the browser that started the request and to a token of its own,
 * and refused when posted from another site.
 */
export class BrowserFlow {
  private readonly sessions: BrowserSessions;
  private readonly requests: PendingRequests;
  private readonly upstream?: UpstreamSignInFlow;
  /** Whether the page offers a sign-in with an access token (one may be configured but held by none). */
  private readonly tokenSignIn: boolean;

  constructor(private readonly ctx: Context) {
    const token = ctx.options.signIn.accessToken;
    this.tokenSignIn = typeof token === 'function' || (token !== undefined && token.offered !== false);
    this.sessions = new BrowserSessions(
      ctx.store,
      () => ctx.issuer().startsWith('https:'),
      (person) => ctx.bindings.standing(person.subject, person.binding) === 'holds',
    );
    this.requests = new PendingRequests(ctx.store);
    const upstream = ctx.options.signIn.upstream;
    if (upstream)
      this.upstream = new UpstreamSignInFlow(upstream, ctx.store, () => ctx.endpoint(PATHS.upstreamCallback));
  }

  /** Answers the flow's paths; false for any other. */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL, path: string): Promise<boolean> {
    const get = req.method === 'GET' || req.method === 'HEAD';
    if (path === PATHS.authorize && get) await this.authorize(req, res, url);
    else if (path === PATHS.signIn && get) await this.showSignIn(req, res, url);
    else if (path === PATHS.signIn && req.method === 'POST') await this.signInWithToken(req, res);
    else if (path === PATHS.upstream && get) await this.startUpstream(req, res, url);
    else if (path === PATHS.upstreamCallback && get) await this.finishUpstream(req, res, url);
    else if (path === PATHS.consent && get) await this.showConsent(req, res, url);
    else if (path === PATHS.consent && req.method === 'POST') await this.answerConsent(req, res);
    else return false;
    return true;
  }

  private async authorize(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const request = await startAuthorization(req, res, url, this.ctx, (q, s) =>
      this.sessions.browserOf(q, s),
    );
    if (!request) return;
    const local = this.localUser();
    if (!(await this.sessions.signedIn(request.browser)) && local !== undefined) {
      // The person at this machine: signed in by reaching it, as the local mode has it. Not
      // counted against their sign-ins: no credential is checked, and a GET that another page
      // sends without the cookie (an <img>) would use up the real person's hour.
      return this.signedIn(res, request, { subject: local, signedInWith: 'local-user' }, false);
    }
    const signedIn = await this.sessions.signedIn(request.browser);
    redirect(res, this.pageUrl(signedIn ? PATHS.consent : PATHS.signIn, request));
  }

  private localUser(): string | undefined {
    const user = this.ctx.options.signIn.localUser;
    return user !== undefined && this.ctx.loopback() ? user : undefined;
  }

  private pageUrl(path: string, request: PendingRequest): string {
    return `${this.ctx.endpoint(path)}?request=${encodeURIComponent(request.id)}`;
  }

  /** The pending request of this page, if this browser started it; else an error page is sent. */
  private async requestFor(
    req: IncomingMessage,
    res: ServerResponse,
    id: string | null | undefined,
  ): Promise<PendingRequest | undefined> {
    const request = await this.requests.get(id);
    if (!request || request.browser !== this.sessions.knownBrowser(req)) {
      sendErrorPage(res, 400, 'This authorization request has expired or belongs to another browser.');
      return undefined;
    }
    return request;
  }

  private async showSignIn(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    notice?: string,
  ): Promise<void> {
    const request = await this.requestFor(req, res, url.searchParams.get('request'));
    if (!request) return;
    this.signInPage(res, request, notice);
  }

  private signInPage(res: ServerResponse, request: PendingRequest, notice?: string, status = 200): void {
    const parts = ['<h1>Sign in to continue</h1>'];
    if (notice) parts.push(`<p class="warn">${escapeHtml(notice)}</p>`);
    if (this.upstream)
      parts.push(
        `<p><a class="button" href="${escapeHtml(this.pageUrl(PATHS.upstream, request))}">Sign in with ${escapeHtml(this.upstream.name)}</a></p>`,
      );
    if (this.tokenSignIn)
      parts.push(
        `<form method="post" action="${escapeHtml(this.ctx.endpoint(PATHS.signIn))}">${hiddenFields({ request: request.id, csrf: request.csrf })}<p><label for="token">Or your access token for this server</label></p><p><input type="password" id="token" name="access_token" autocomplete="off" required></p><p><button class="primary" type="submit">Sign in</button></p></form>`,
      );
    if (!this.upstream && !this.tokenSignIn)
      parts.push('<p>No way to sign in is configured on this server; ask its operator.</p>');
    sendPage(res, status, 'Sign in', parts.join(''));
  }

  private async signInWithToken(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await this.checkedForm(req, res);
    if (!form) return;
    const { request, fields } = form;
    if (!this.tokenSignIn)
      throw new BadRequest(404, 'invalid_request', 'Access token sign-in is not enabled');
    const address = this.ctx.caller(req);
    // Counted before the check (concurrent guesses cannot all pass a read-then-count), and a
    // success takes back only its own count: wiping the count would let anyone with a token of
    // their own sign in between guesses at others' tokens for ever more guesses.
    if (
      (await this.ctx.store.increment(`sign-in-failures:${address}`, FAILED_SIGN_IN_WINDOW)) > FAILED_SIGN_INS
    ) {
      this.ctx.emit({ type: 'sign_in_refused', clientId: request.clientId, reason: 'too many attempts' });
      return this.signInPage(
        res,
        request,
        `Too many attempts; try again within ${within(FAILED_SIGN_IN_WINDOW)}.`,
        429,
      );
    }
    const subject = this.ctx.bindings.userOf(fields.get('access_token') ?? '');
    if (subject === undefined) {
      this.ctx.emit({ type: 'sign_in_refused', clientId: request.clientId, reason: 'unknown access token' });
      return this.signInPage(res, request, 'That access token is not valid here.', 401);
    }
    await this.ctx.store.decrement(`sign-in-failures:${address}`);
    // Bound to the token it was made with: replaced or removed, the sign-in and its grants end.
    const binding = this.ctx.bindings.bindingOf(subject);
    await this.signedIn(res, request, {
      subject,
      signedInWith: 'access-token',
      ...(binding !== undefined ? { binding } : {}),
    });
  }

  /** Signs the person in and goes on to consent; `counted` against their sign-ins unless said. */
  private async signedIn(
    res: ServerResponse,
    request: PendingRequest,
    person: SignedIn,
    counted = true,
  ): Promise<void> {
    if (counted && !(await this.maySignIn(request, person.subject)))
      return this.signInPage(res, request, TOO_MANY_SIGN_INS, 429);
    const moved = await this.requests.rebind(request, await this.sessions.signIn(res, person));
    const { subject, signedInWith } = person;
    this.ctx.emit({ type: 'sign_in', subject, clientId: request.clientId, signedInWith });
    redirect(res, this.pageUrl(PATHS.consent, moved));
  }

  /** Counts the person's sign-in: false (told) past their bound. */
  private async maySignIn(request: PendingRequest, subject: string): Promise<boolean> {
    if (await this.ctx.people.signIn(subject)) return true;
    this.ctx.emit({
      type: 'sign_in_refused',
      clientId: request.clientId,
      subject,
      reason: 'too many sign-ins',
    });
    return false;
  }

  /**
   * Refuses, at the client's redirect URI, an authorization the person may not give now (past
   * their bounds of completed ones); true when refused. The first-party pages are not held to it.
   */
  private async refusedPastBounds(res: ServerResponse, request: PendingRequest, subject: string) {
    if (
      isFirstPartyClient(this.ctx.options, request.clientId) ||
      (await this.ctx.people.mayAuthorize(subject))
    )
      return false;
    if ((await this.requests.take(request.id)) === undefined) alreadyAnswered(res);
    else {
      const refused = { clientId: request.clientId, subject, error: 'access_denied' };
      this.ctx.emit({ type: 'refused', ...refused, reason: 'too many authorizations' });
      redirectWithError(res, this.ctx, request, 'access_denied', TOO_MANY_AUTHORIZATIONS);
    }
    return true;
  }

  private async startUpstream(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const request = await this.requestFor(req, res, url.searchParams.get('request'));
    if (!request) return;
    if (!this.upstream) return sendErrorPage(res, 404, 'Signing in with a provider is not configured.');
    try {
      redirect(res, await this.upstream.start(request.id, request.browser));
    } catch (e) {
      // The attempt not kept is the store's failure, for the embedder to answer (503), not the provider's.
      if (ToolError.isInstance(e) && e.code === 'store_unavailable') throw e;
      this.signInPage(res, request, 'The sign-in provider cannot be reached now; try again shortly.', 502);
    }
  }

  private async finishUpstream(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (!this.upstream) return sendErrorPage(res, 404, 'Signing in with a provider is not configured.');
    const browser = this.sessions.knownBrowser(req);
    const outcome = await this.upstream.finish(url, browser);
    const request = outcome.requestId ? await this.requests.get(outcome.requestId) : undefined;
    if ('error' in outcome) {
      this.ctx.emit({
        type: 'sign_in_refused',
        ...(request ? { clientId: request.clientId } : {}),
        reason: outcome.error,
      });
      if (request && request.browser === browser) return this.signInPage(res, request, outcome.error, 403);
      return sendErrorPage(res, 400, outcome.error);
    }
    if (!request || request.browser !== browser)
      return sendErrorPage(
        res,
        400,
        'This authorization request has expired; start again from the application.',
      );
    await this.signedIn(res, request, { subject: outcome.subject, signedInWith: 'upstream' });
  }

  private async showConsent(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const request = await this.requestFor(req, res, url.searchParams.get('request'));
    if (!request) return;
    const person = await this.sessions.signedIn(request.browser);
    if (!person) return redirect(res, this.pageUrl(PATHS.signIn, request));
    if (await this.refusedPastBounds(res, request, person.subject)) return;
    let client: Client;
    try {
      client = await this.ctx.clients.resolve(request.clientId);
    } catch (e) {
      if (!(e instanceof ClientError)) throw e;
      return sendErrorPage(res, 400, 'This client can no longer be used.');
    }
    if (isFirstPartyClient(this.ctx.options, client.clientId)) {
      // The embedding application's own pages: the person is signing in to it, nothing to allow.
      return this.answerWithCode(res, request, person);
    }
    sendPage(res, 200, 'Allow access?', this.consentBody(request, client, person.subject));
  }

  private consentBody(request: PendingRequest, client: Client, subject: string): string {
    const document = isMetadataDocumentId(client.clientId);
    const from = document ? new URL(client.clientId).host : undefined;
    const verified = this.trusted(client.clientId);
    // Cleaned as it is drawn too: a record kept from before, or a store written by other code.
    const name = shownText(client.clientName ?? '') || from || 'An application';
    const badge = verified ? '' : '<span class="badge">unverified</span>';
    const origin = document
      ? `<p class="muted">Its identity is published at <b>${escapeHtml(from!)}</b>${verified ? '' : '; the name is what that page says, not checked by this server'}.</p>`
      : '<p class="muted">It registered itself with this server; its name is what it said, not checked.</p>';
    const elsewhere = answerTargetNote(request.redirectUri, document ? client.clientId : undefined, name);
    const descriptions = new Map(this.ctx.options.scopes.map((s) => [s.name, s.description]));
    const scopes = request.scopes
      .map((s) => `<li><b>${escapeHtml(s)}</b>: ${escapeHtml(descriptions.get(s) ?? s)}</li>`)
      .join('');
    return `<h1><span class="who">${escapeHtml(name)}</span>${badge} wants to use your tools</h1>${origin}
<p>Signed in as <b>${escapeHtml(subject)}</b>. If you allow it, it may:</p><ul>${scopes}</ul>${elsewhere}
<p class="muted">For ${escapeHtml(request.resource)}</p>
<form method="post" action="${escapeHtml(this.ctx.endpoint(PATHS.consent))}">${hiddenFields({ request: request.id, csrf: request.csrf })}<button class="primary" type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Deny</button></form>`;
  }

  private trusted(clientId: string): boolean {
    const trusted = this.ctx.options.trustedClients ?? [];
    if (trusted.includes(clientId)) return true;
    return isMetadataDocumentId(clientId) && trusted.includes(new URL(clientId).host);
  }

  private async answerConsent(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await this.checkedForm(req, res);
    if (!form) return;
    const { request, fields } = form;
    const person = await this.sessions.signedIn(request.browser);
    if (!person) return redirect(res, this.pageUrl(PATHS.signIn, request));
    if (fields.get('decision') === 'allow') {
      if (await this.refusedPastBounds(res, request, person.subject)) return;
      return this.answerWithCode(res, request, person);
    }
    // Taken: a consent is answered once, a second post finds nothing.
    if ((await this.requests.take(request.id)) === undefined) return alreadyAnswered(res);
    this.ctx.emit({ type: 'consent_denied', clientId: request.clientId, subject: person.subject });
    return redirectWithError(res, this.ctx, request, 'access_denied', 'The person denied access');
  }

  /**
   * The code at the client's redirect URI: the person allowed it, or it is a first-party
   * client. The code is stored (durably) before the request is taken: a store that cannot take
   * it leaves the request pending, for the person to allow again.
   */
  private async answerWithCode(
    res: ServerResponse,
    request: PendingRequest,
    person: SignedIn,
  ): Promise<void> {
    const { subject, binding, signedInWith } = person;
    const code = await this.ctx.grants.issueCode({
      clientId: request.clientId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      subject,
      ...(binding !== undefined ? { binding } : {}),
      ...(signedInWith !== undefined ? { signedInWith } : {}),
      scopes: request.scopes,
      resource: request.resource,
    });
    // Taken: a consent is answered once, a second post finds nothing (and its code goes).
    if ((await this.requests.take(request.id)) === undefined) {
      await this.ctx.grants.discardCode(code);
      return alreadyAnswered(res);
    }
    this.ctx.emit({ type: 'consent', clientId: request.clientId, subject, signedInWith });
    const target = new URL(request.redirectUri);
    target.searchParams.set('code', code);
    if (request.state !== undefined) target.searchParams.set('state', request.state);
    target.searchParams.set('iss', this.ctx.issuer());
    redirect(res, target.href);
  }

  /**
   * A posted form of a pending request: same origin, the browser that started the request,
   * its anti-forgery token. Answers 403 otherwise and changes nothing.
   */
  private async checkedForm(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<{ request: PendingRequest; fields: Map<string, string> } | undefined> {
    try {
      requireSameOrigin(req, this.ctx.issuer());
      const fields = await readForm(req, 16 * 1024);
      const request = await this.requests.get(fields.get('request'));
      if (!request)
        throw new BadRequest(400, 'invalid_request', 'This authorization request has expired; start again.');
      if (request.browser !== this.sessions.knownBrowser(req))
        throw new BadRequest(
          403,
          'access_denied',
          'This form was not posted by the browser that started the request.',
        );
      requireToken(fields.get('csrf'), request.csrf);
      return { request, fields };
    } catch (e) {
      if (!(e instanceof BadRequest)) throw e;
      this.ctx.emit({ type: 'refused', error: e.error, reason: e.message });
      sendErrorPage(res, e.status, e.message);
      return undefined;
    }
  }
}

function alreadyAnswered(res: ServerResponse): void {
  sendErrorPage(res, 400, 'This authorization request was already answered.');
}
