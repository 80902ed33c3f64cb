/**
 * A toolhost MCP endpoint as an OAuth protected resource: its front door (RFC 9728 metadata,
 * challenges, scopes), and the check of a presented access token behind it: JWTs against an
 * issuer's JWKS or a key set handed in-process, opaque tokens by introspection (RFC 7662), an
 * issuer's metadata discovered (and checked, for `toolhost doctor`), and recent answers cached.
 */

export { CachedVerifier, type CacheOptions } from './cached-verifier.js';
export {
  type Caller,
  type DoorRefusal,
  FrontDoor,
  type FrontDoorSettings,
  type ScopePolicy,
  type StaticTokens,
} from './front-door.js';
export { type IntrospectionOptions, IntrospectionVerifier } from './introspection-verifier.js';
export { type DoorCheck, type IssuerCheckSettings, issuerChecks } from './issuer-checks.js';
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
export { isUserId } from './user-id.js';
