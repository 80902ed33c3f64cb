import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import type { AccessTokens } from './access-tokens.js';
import { FlowBinding } from './flow-binding.js';
import {
  CALLBACK_PATH_PREFIX,
  type OAuthAuthProvider,
  OAuthCallbackError,
  type PendingFlow,
  START_PATH_PREFIX,
} from './oauth-provider.js';

export interface OAuthRoutesOptions {
  providers: readonly OAuthAuthProvider[];
  /** With access tokens, a browser is bound to a flow only after its user confirms with theirs. */
  accessTokens: AccessTokens;
  logger?: Logger;
  /** Origins the host's own pages are served from (a confirmation form must be posted from one). */
  ownOrigins: (req: IncomingMessage) => string[];
  /** Cookies get `Secure` when users reach the host over HTTPS. */
  secureCookies: () => boolean;
}

const FORM_LIMIT_BYTES = 8 * 1024;

export const esc = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A small HTML page without script, never cached or framed. */
export function page(
  res: ServerResponse,
  status: number,
  title: string,
  text: string,
  extra: { body?: string; headers?: Record<string, string | string[]> } = {},
): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    // The pages carry no script; nothing of theirs may be framed (clickjacking the confirmation).
    'content-security-policy': "default-src 'none'; form-action 'self'; frame-ancestors 'none'",
    'referrer-policy': 'no-referrer',
    ...extra.headers,
  });
  res.end(
    `<!doctype html><meta charset="utf-8"><title>${esc(title)}</title><h1>${esc(title)}</h1><p>${esc(text)}</p>${extra.body ?? ''}`,
  );
}

export function redirect(res: ServerResponse, status: number, location: string, cookie?: string): void {
  res.writeHead(status, {
    location,
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    ...(cookie ? { 'set-cookie': cookie } : {}),
  });
  res.end();
}

/** A small urlencoded form body (undefined when over the limit). */
export function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > FORM_LIMIT_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}

/**
 * The browser side of OAuth: `/oauth/start/<provider>?flow=…` (the link handed to the user)
 * binds the browser to the flow and redirects to the authorization server, and
 * `/oauth/callback/<provider>` completes the flow only in that browser. With access tokens,
 * binding first asks for the access token of the user who started the flow; without them
 * (loopback, one trusted user) the first browser to open the link is bound.
 */
export function oauthRoutes(options: OAuthRoutesOptions) {
  const providers = new Map(options.providers.map((p) => [p.id, p]));
  const binding = new FlowBinding();
  const log = options.logger;

  function start(provider: OAuthAuthProvider, flow: PendingFlow, res: ServerResponse): void {
    provider.markOpened(flow.flowId);
    redirect(res, 302, flow.authorizeUrl, binding.cookie(flow, options.secureCookies()));
  }

  async function confirm(
    provider: OAuthAuthProvider,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    // A form posted from another site could bind the victim's browser to the attacker's flow.
    const origin = req.headers.origin;
    if (
      (origin !== undefined && !options.ownOrigins(req).includes(origin)) ||
      req.headers['sec-fetch-site'] === 'cross-site'
    ) {
      return page(res, 403, 'Not allowed', 'This confirmation must be sent from the host’s own page.');
    }
    const form = await readForm(req);
    const flow = provider.pendingFlow(form?.get('flow') ?? '');
    if (!form || !flow) return expired(res);
    const user = options.accessTokens.userForToken(form.get('access_token') ?? '');
    if (user !== flow.userId) {
      log?.warn({ provider: provider.id }, 'authorization confirmation refused');
      return page(
        res,
        403,
        'Not your authorization',
        'That access token does not belong to the user who started this authorization.',
      );
    }
    provider.markOpened(flow.flowId);
    redirect(res, 303, flow.authorizeUrl, binding.cookie(flow, options.secureCookies()));
  }

  function expired(res: ServerResponse): void {
    page(
      res,
      400,
      'Link expired',
      'This authorization link is unknown or has expired; call the tool again for a new one.',
    );
  }

  function confirmationPage(provider: OAuthAuthProvider, flow: PendingFlow, res: ServerResponse): void {
    page(
      res,
      200,
      `Authorize ${provider.id}`,
      'To continue, enter the access token your agent uses with this host (it proves that this authorization is yours).',
      {
        body: `<form method="post" action="${esc(encodeURIComponent(provider.id))}"><input type="hidden" name="flow" value="${esc(flow.flowId)}"><label>Access token <input type="password" name="access_token" autocomplete="off" required></label> <button type="submit">Continue</button></form>`,
      },
    );
  }

  async function callback(
    provider: OAuthAuthProvider,
    url: URL,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    try {
      const { flow, userId } = await provider.handleCallback(url.searchParams, (f) =>
        binding.isBound(req.headers.cookie, f),
      );
      log?.info({ provider: provider.id, user: userId }, 'authorization completed');
      page(res, 200, 'Authorization complete', 'You can close this window and return to your agent.', {
        headers: { 'set-cookie': binding.clear(flow, options.secureCookies()) },
      });
    } catch (e) {
      const known = OAuthCallbackError.isInstance(e);
      const message = known ? e.message : 'The authorization could not be completed.';
      log?.warn({ provider: provider.id, reason: message }, 'authorization failed');
      page(res, known ? e.status : 400, 'Authorization failed', message);
    }
  }

  /** Answers the request if it is one of these routes; false otherwise. */
  async function handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const prefix = url.pathname.startsWith(START_PATH_PREFIX)
      ? START_PATH_PREFIX
      : url.pathname.startsWith(CALLBACK_PATH_PREFIX)
        ? CALLBACK_PATH_PREFIX
        : undefined;
    if (!prefix) return false;
    let providerId: string;
    try {
      providerId = decodeURIComponent(url.pathname.slice(prefix.length));
    } catch {
      // Malformed percent-encoding is the client's mistake, not the host's.
      page(res, 400, 'Bad request', 'The provider in this address is not valid percent-encoding.');
      return true;
    }
    const provider = providers.get(providerId);
    if (!provider) {
      page(res, 404, 'Unknown provider', `No OAuth provider '${providerId}' is configured.`);
      return true;
    }
    if (prefix === CALLBACK_PATH_PREFIX && req.method === 'GET') {
      await callback(provider, url, req, res);
      return true;
    }
    if (prefix === START_PATH_PREFIX && req.method === 'POST' && options.accessTokens.enabled) {
      await confirm(provider, req, res);
      return true;
    }
    if (prefix === START_PATH_PREFIX && req.method === 'GET') {
      const flow = provider.pendingFlow(url.searchParams.get('flow') ?? '');
      if (!flow) expired(res);
      // The same browser coming back (a reload, a second try) goes on without asking again.
      else if (binding.isBound(req.headers.cookie, flow)) redirect(res, 302, flow.authorizeUrl);
      else if (options.accessTokens.enabled) confirmationPage(provider, flow, res);
      else if (flow.opened) {
        page(
          res,
          403,
          'Link already used',
          'This authorization link was opened in another browser; call the tool again for a new one.',
        );
      } else start(provider, flow, res);
      return true;
    }
    page(res, 405, 'Method not allowed', 'This page is for a browser to open.');
    return true;
  }

  return { handle };
}
