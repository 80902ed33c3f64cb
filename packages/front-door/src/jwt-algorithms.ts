/**
 * The asymmetric algorithms an issuer signs access tokens with: the default allow-list and the
 * config's choices (`http.authorization.algorithms`). `none` and HMAC are never among them.
 * Its own module and entry (`@toolhost/front-door/jwt-algorithms`), without imports, so that the
 * host's config schema and its start-up check of the config take it without loading `jose`.
 */
export const JWT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

/** The asymmetric algorithms accepted by default; `none` and HMAC never are. */
export const DEFAULT_JWT_ALGORITHMS = JWT_ALGORITHMS;

/** The algorithms of a configuration, refusing those that would let anyone forge a token. */
export function allowedAlgorithms(algorithms: readonly string[] | undefined): string[] {
  const list = [...(algorithms ?? DEFAULT_JWT_ALGORITHMS)];
  // `none` signs nothing; HS* would verify with a secret the host does not have, or worse, a
  // public key used as an HMAC secret (the classic key-confusion forgery).
  const unsafe = list.filter((a) => a.toLowerCase() === 'none' || /^HS\d+$/i.test(a));
  if (unsafe.length > 0) throw new Error(`Access token algorithms ${unsafe.join(', ')} are not accepted`);
  if (list.length === 0) throw new Error('Access token algorithms: name at least one');
  return list;
}
