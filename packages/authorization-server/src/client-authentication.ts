import type { IncomingMessage } from 'node:http';
import { countForCaller } from './caller-bounds.js';
import { type Client, ClientError } from './clients.js';
import type { Context } from './context.js';
import { BadRequest } from './http-util.js';
import { sameSecret } from './secrets.js';

/**
 * The client calling the token or revocation endpoint: a public client by its client_id, a
 * confidential one by its secret (HTTP Basic or in the form). Refused with `invalid_client`.
 */
export async function authenticateClient(
  req: IncomingMessage,
  form: Map<string, string>,
  ctx: Context,
): Promise<Client> {
  const basic = /^Basic\s+(.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];
  let clientId = form.get('client_id');
  let secret = form.get('client_secret');
  const challenge: Record<string, string> = basic ? { 'www-authenticate': 'Basic realm="token"' } : {};
  if (basic) {
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new BadRequest(401, 'invalid_client', 'Malformed Basic credentials', challenge);
    let basicId: string;
    let basicSecret: string;
    try {
      // Each part form-encoded (RFC 6749 §2.3.1); a stray % is the client's error, not ours.
      basicId = formDecoded(decoded.slice(0, colon));
      basicSecret = formDecoded(decoded.slice(colon + 1));
    } catch {
      throw new BadRequest(401, 'invalid_client', 'Malformed Basic credentials', challenge);
    }
    if (clientId !== undefined && clientId !== basicId)
      throw new BadRequest(400, 'invalid_request', 'client_id differs from the Basic credentials');
    if (secret !== undefined)
      throw new BadRequest(400, 'invalid_request', 'Use one client authentication method');
    clientId = basicId;
    secret = basicSecret;
  }
  if (!clientId) throw new BadRequest(401, 'invalid_client', 'The request names no client', challenge);
  let client: Client;
  try {
    client = await ctx.clients.resolve(clientId, () => countFetch(req, ctx));
  } catch (e) {
    // Only a client found wanting is invalid_client: a store that did not answer is the
    // server's failure, for the embedder to answer as one (a client told invalid_client drops
    // its registration and tokens, and its person signs in again).
    if (!(e instanceof ClientError)) throw e;
    throw new BadRequest(401, 'invalid_client', e.message, challenge);
  }
  if (client.tokenEndpointAuthMethod === 'none') {
    if (secret !== undefined)
      throw new BadRequest(401, 'invalid_client', 'This public client has no secret', challenge);
    return client;
  }
  if (secret === undefined || !client.secretHash || !sameSecret(secret, client.secretHash))
    throw new BadRequest(401, 'invalid_client', 'The client secret is wrong or missing', challenge);
  return client;
}

/** The window of the bounds on metadata documents fetched for token and revocation requests. */
const FETCH_WINDOW_SECONDS = 600;

/**
 * Counted before a client id metadata document is fetched for a token or revocation request:
 * anyone may post one naming any https URL, each a request from this server of up to 5 s, so
 * a caller could otherwise have it fetch without end (authorization requests are bounded on
 * their own). A client's document is cached, so its own requests seldom count.
 */
function countFetch(req: IncomingMessage, ctx: Context): Promise<void> {
  const limits = ctx.options.metadataFetch;
  return countForCaller(ctx.store, ctx.caller(req), {
    prefix: 'metadata-fetch-count',
    perAddress: limits?.perAddress ?? 60,
    total: limits?.total ?? 10_000,
    windowSeconds: FETCH_WINDOW_SECONDS,
    what: 'client metadata documents named',
  });
}

function formDecoded(part: string): string {
  return decodeURIComponent(part.replace(/\+/g, ' '));
}
