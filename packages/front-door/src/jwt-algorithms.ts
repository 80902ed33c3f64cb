/**
 * The asymmetric algorithms an issuer signs access tokens with: the default allow-list and the
 * config's choices (`http.authorization.algorithms`). `none` and HMAC are never among them.
 * Its own module and entry (`@toolhost/front-door/jwt-algorithms`), without imports, so that the
 * host's config schema takes it without loading `jose`.
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
