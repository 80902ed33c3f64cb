import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticateClient } from './client-authentication.js';
import type { Context } from './context.js';
import { BadRequest, OPEN_CORS, readForm } from './http-util.js';

/**
 * RFC 7009: a client ends its own grant by presenting a refresh or access token of it. The
 * answer is 200 whatever the token (unknown, another client's, already revoked), so that it
 * tells nothing about tokens; only the client's own grants are ever revoked.
 */
export async function answerRevocation(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: Context,
  grantOfAccessToken: (token: string) => Promise<string | undefined>,
): Promise<void> {
  const form = await readForm(req);
  const client = await authenticateClient(req, form, ctx);
  const token = form.get('token');
  // Required (RFC 7009 §2.1): a request without one is malformed, unlike an unknown token.
  if (!token) throw new BadRequest(400, 'invalid_request', 'token is required');
  const grantId = await grantOfAccessToken(token);
  const grant =
    (await ctx.grants.grantOfRefresh(token)) ?? (grantId ? await ctx.grants.grant(grantId) : undefined);
  if (grant && grant.clientId === client.clientId) {
    await ctx.grants.revoke(grant.id);
    ctx.emit({ type: 'token_revoked', clientId: client.clientId, subject: grant.subject });
  }
  res.writeHead(200, { 'cache-control': 'no-store', 'content-length': 0, ...OPEN_CORS });
  res.end();
}
