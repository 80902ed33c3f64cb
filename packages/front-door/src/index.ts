/**
 * The check of an access token presented to a toolhost MCP endpoint: JWTs against an issuer's
 * JWKS or a key set handed in-process, opaque tokens by introspection (RFC 7662), an issuer's
 * metadata discovered, and recent answers cached. The host's front door (its protected-resource
 * metadata, challenges and scopes) asks it whose a token is and what it allows.
 */
export { CachedVerifier, type CacheOptions } from './cached-verifier.js';
export { type IntrospectionOptions, IntrospectionVerifier } from './introspection-verifier.js';
export { discoverIssuer, type IssuerMetadata, isLoopbackUrl } from './issuer-metadata.js';
export { type IssuerSettings, IssuerVerifier } from './issuer-verifier.js';
export { allowedAlgorithms, DEFAULT_JWT_ALGORITHMS, JWT_ALGORITHMS } from './jwt-algorithms.js';
export {
  type JwtRules,
  JwtVerifier,
  type LocalKeySetOptions,
  localKeySetVerifier,
  type RemoteJwksOptions,
  remoteJwksVerifier,
  type TokenRejection,
  type TokenVerifier,
  type Verification,
  type VerifiedToken,
} from './token-verifier.js';
