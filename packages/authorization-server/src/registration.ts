import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { countForCaller } from './caller-bounds.js';
import { type Client, displayFieldsOf, redirectUrisOf, UNUSED_CLIENT_SECONDS } from './clients.js';
import { type GrantType, grantTypesOf } from './grant-types.js';
import { BadRequest, readBodyWithin } from './http-util.js';
import { hashOf, newSecret } from './secrets.js';
import type { StateStore } from './state-store.js';

export interface RegistrationLimits {
  /** Registrations accepted from one address per window. */
  perAddress: number;
  /** Registrations accepted in all per window. */
  total: number;
  windowSeconds: number;
  /** How long a registered client is kept after it was last issued tokens (seconds). */
  clientSeconds: number;
}

const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;

/** Counted before the body is read: a flood costs one counter each, not a parse. */
function countRegistration(caller: string, store: StateStore, limits: RegistrationLimits) {
  return countForCaller(store, caller, { prefix: 'register-count', ...limits, what: 'registrations' });
}

/** The registration's JSON object (at most 16 KiB of application/json). */
async function readMetadata(req: IncomingMessage): Promise<Record<string, unknown>> {
  if (!/^application\/json\b/i.test(String(req.headers['content-type'] ?? ''))) {
    req.resume();
    throw new BadRequest(400, 'invalid_client_metadata', 'The registration must be application/json');
  }
  let metadata: Record<string, unknown>;
  try {
    metadata = JSON.parse(await readBodyWithin(req, 16 * 1024)) as Record<string, unknown>;
  } catch (e) {
    if (e instanceof BadRequest) throw e;
    throw new BadRequest(400, 'invalid_client_metadata', 'The registration is not valid JSON');
  }
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata))
    throw new BadRequest(400, 'invalid_client_metadata', 'The registration must be a JSON object');
  return metadata;
}

/** What the registration asks for, checked: redirect URIs, how it authenticates, its grants (RFC 7591 defaults). */
function requestedOf(metadata: Record<string, unknown>) {
  let redirectUris: string[];
  try {
    redirectUris = redirectUrisOf(metadata.redirect_uris);
  } catch (e) {
    throw new BadRequest(400, 'invalid_redirect_uri', `The registration ${(e as Error).message}`);
  }
  const method = metadata.token_endpoint_auth_method ?? 'client_secret_basic';
  if (!(AUTH_METHODS as readonly unknown[]).includes(method))
    throw new BadRequest(
      400,
      'invalid_client_metadata',
      `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}`,
    );
  let grantTypes: GrantType[];
  try {
    grantTypes = grantTypesOf(metadata, true);
  } catch (e) {
    throw new BadRequest(400, 'invalid_client_metadata', (e as Error).message);
  }
  return { redirectUris, method: method as Client['tokenEndpointAuthMethod'], grantTypes };
}

/**
 * Dynamic client registration (RFC 7591): a public client (PKCE) or one with a secret, whose
 * redirect URIs pass the same rules as a metadata document's. Bounded per caller and in all,
 * so that a flood fills neither the store nor the consent page's list of clients.
 */
export async function registerClient(
  req: IncomingMessage,
  caller: string,
  store: StateStore,
  limits: RegistrationLimits,
): Promise<Record<string, unknown>> {
  await countRegistration(caller, store, limits);
  const metadata = await readMetadata(req);
  const { redirectUris, method, grantTypes } = requestedOf(metadata);
  const secret = method === 'none' ? undefined : newSecret();
  const client: Client = {
    clientId: randomUUID(),
    redirectUris,
    tokenEndpointAuthMethod: method,
    source: 'registration',
    grantTypes,
    ...displayFieldsOf(metadata),
    ...(secret ? { secretHash: hashOf(secret) } : {}),
  };
  // Durable: a failover must not forget a client that holds its id (and secret) from now on.
  // One that never learns its id is not kept either. Kept a day until it is issued tokens.
  const key = `client:${client.clientId}`;
  const ttl = Math.min(limits.clientSeconds, UNUSED_CLIENT_SECONDS);
  await store.set(key, JSON.stringify(client), ttl, { durable: true }).catch(async (e: unknown) => {
    await store.delete(key).catch(() => {});
    throw e;
  });
  return {
    client_id: client.clientId,
    client_id_issued_at: Math.floor(Date.now() / 1000),
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    redirect_uris: redirectUris,
    token_endpoint_auth_method: method,
    // As registered: the values the server settled on, defaults and consistency applied (§3.2.1).
    grant_types: grantTypes,
    response_types: grantTypes.includes('authorization_code') ? ['code'] : [],
    ...(client.clientName ? { client_name: client.clientName } : {}),
    ...(client.clientUri ? { client_uri: client.clientUri } : {}),
  };
}
