import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose';
import { allowedAlgorithms } from './jwt-algorithms.js';
import { isUserId } from './user-id.js';

/**
 * What the front door knows of a valid access token: whose it is, what it allows, which client
 * holds it and until when. `subject` is the host's user id for every call made with it.
 */
export interface VerifiedToken {
  subject: string;
  /** The token's scopes as issued (`scope`, `scp`); the front door maps them to host scopes. */
  scopes: readonly string[];
  /** The client the token was issued to (`client_id`, `azp`, `appid`), when the token says. */
  clientId?: string;
  /** When the token expires, in seconds since the epoch, when the token says. */
  expiresAt?: number;
}

/**
 * A token refused. `invalid`: the token is not good here (expired, another audience, a bad
 * signature…) and the client must get a new one (401 `invalid_token`). `unavailable`: it
 * could not be checked (the issuer's keys or introspection endpoint unreachable): the client
 * should try again, not sign in again (503).
 */
export interface TokenRejection {
  kind: 'invalid' | 'unavailable';
  /** Why, in words safe to send back: never the token or its claims' values. */
  reason: string;
}

export type Verification = { ok: true; token: VerifiedToken } | { ok: false; rejection: TokenRejection };

/**
 * Checks a bearer token presented to the MCP endpoint. Implementations: an issuer's JWKS
 * fetched over HTTP ({@link remoteJwksVerifier}), a key set handed in-process by the host's own
 * authorization server ({@link localKeySetVerifier}), RFC 7662 introspection for opaque
 * tokens (`introspection-verifier.ts`); {@link CachedVerifier} keeps recent answers.
 */
export interface TokenVerifier {
  verify(token: string): Promise<Verification>;
}

/** What a JWT access token must carry to be honoured here. */
export interface JwtRules {
  /** The issuer's identifier, exactly as in the token's `iss`. */
  issuer: string;
  /** The audiences that mean this resource (RFC 8707): the MCP endpoint's public URL, by default. */
  audience: string | readonly string[];
  /** The signing algorithms accepted; never `none`. */
  algorithms?: readonly string[];
  /** The claim that names the user (default `sub`). */
  subjectClaim?: string;
  /** Leeway for `exp` and `nbf`, in seconds (default 30: clocks of hosts and issuers drift). */
  clockToleranceSeconds?: number;
}

/** A token's scopes: `scope` (RFC 9068, space-separated) or `scp` (Okta, Entra: array or string). */
export function scopesOf(claims: Record<string, unknown>): string[] {
  const raw = claims.scope ?? claims.scp;
  if (typeof raw === 'string') return raw.split(' ').filter(Boolean);
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string');
  return [];
}

/** The client a token was issued to, by the claim its issuer uses. */
export function clientIdOf(claims: Record<string, unknown>): string | undefined {
  for (const name of ['client_id', 'azp', 'appid', 'cid']) {
    const value = claims[name];
    if (typeof value === 'string' && value) return value;
  }
  return undefined;
}

/** The user a token names, by the configured claim; undefined where it names none usable. */
export function subjectOf(claims: Record<string, unknown>, claim = 'sub'): string | undefined {
  const value = claims[claim];
  return isUserId(value) ? value : undefined;
}

/**
 * The token a verifier accepts once it has checked the claims' issuer, audience and times:
 * whose it is (refused where the subject claim is missing or unusable), its scopes, client and expiry.
 */
export function acceptedToken(claims: Record<string, unknown>, subjectClaim?: string): Verification {
  const subject = subjectOf(claims, subjectClaim);
  if (subject === undefined) return invalid(`the token has no usable '${subjectClaim ?? 'sub'}' claim`);
  // An email its issuer says it has not verified is what its holder typed (at some providers
  // anyone may set any): as the user id it would make them whoever owns that address. A token
  // that says nothing of it leaves the claim to the operator, who chose it.
  if (subjectClaim === 'email' && [false, 'false'].includes(claims.email_verified as never))
    return invalid("the token's email is not verified by its issuer");
  const clientId = clientIdOf(claims);
  return {
    ok: true,
    token: {
      subject,
      scopes: scopesOf(claims),
      ...(clientId ? { clientId } : {}),
      ...(typeof claims.exp === 'number' ? { expiresAt: claims.exp } : {}),
    },
  };
}

/** A JWT access token checked against a key source: signature, `iss`, `aud`, `exp`, `nbf`. */
export class JwtVerifier implements TokenVerifier {
  private readonly algorithms: string[];

  constructor(
    private readonly keys: JWTVerifyGetKey,
    private readonly rules: JwtRules,
  ) {
    this.algorithms = allowedAlgorithms(rules.algorithms);
  }

  async verify(token: string): Promise<Verification> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keys, {
        issuer: this.rules.issuer,
        audience: [this.rules.audience].flat(),
        algorithms: this.algorithms,
        clockTolerance: this.rules.clockToleranceSeconds ?? 30,
        requiredClaims: ['exp'],
      }));
    } catch (e) {
      return { ok: false, rejection: rejectionOf(e) };
    }
    return acceptedToken(payload as Record<string, unknown>, this.rules.subjectClaim);
  }
}

export const invalid = (reason: string): Verification => ({
  ok: false,
  rejection: { kind: 'invalid', reason },
});

export const unavailable = (reason: string): Verification => ({
  ok: false,
  rejection: { kind: 'unavailable', reason },
});

/** jose's error as a rejection that names the check, never a claim's value. */
function rejectionOf(e: unknown): TokenRejection {
  if (e instanceof errors.JWTExpired) return { kind: 'invalid', reason: 'the token has expired' };
  if (e instanceof errors.JWTClaimValidationFailed) {
    const claim = e.claim;
    if (claim === 'nbf') return { kind: 'invalid', reason: 'the token is not valid yet' };
    if (claim === 'aud') return { kind: 'invalid', reason: 'the token was issued for another resource' };
    if (claim === 'iss') return { kind: 'invalid', reason: 'the token was issued by another issuer' };
    return { kind: 'invalid', reason: `the token's '${claim}' claim is missing or wrong` };
  }
  if (e instanceof errors.JWKSNoMatchingKey) {
    return { kind: 'invalid', reason: "the token's key is not among the issuer's keys" };
  }
  if (e instanceof errors.JOSEAlgNotAllowed) {
    return { kind: 'invalid', reason: "the token's signing algorithm is not accepted" };
  }
  if (e instanceof errors.JWSSignatureVerificationFailed) {
    return { kind: 'invalid', reason: "the token's signature does not verify" };
  }
  if (e instanceof errors.JWKSTimeout || e instanceof errors.JWKSInvalid) {
    return { kind: 'unavailable', reason: "the issuer's keys could not be fetched" };
  }
  if (e instanceof errors.JOSEError) return { kind: 'invalid', reason: 'the token is not a valid JWT' };
  // A fetch that failed (the issuer unreachable) is not the token's fault.
  if (e instanceof Error && (e.name === 'TypeError' || e.name === 'AbortError')) {
    return { kind: 'unavailable', reason: "the issuer's keys could not be fetched" };
  }
  return { kind: 'invalid', reason: 'the token is not a valid JWT' };
}

export interface RemoteJwksOptions extends JwtRules {
  /** The issuer's JWKS (its metadata's `jwks_uri`). */
  jwksUri: string;
  /** How long fetched keys are used before they are fetched again (default 10 minutes). */
  cacheMaxAgeMs?: number;
  /** How long an unknown `kid` waits before the keys are fetched again (default 30 s). */
  cooldownMs?: number;
  /** How long a fetch of the keys may take (default 5 s). */
  timeoutMs?: number;
}

/**
 * Mode "your identity provider": keys from the issuer's JWKS, cached. A token signed with a
 * key not yet in the cache (the issuer rotated) fetches the set again, at most once per
 * cooldown, so that a flood of made-up key ids cannot make the host hammer the issuer.
 */
export function remoteJwksVerifier(options: RemoteJwksOptions): JwtVerifier {
  const keys = createRemoteJWKSet(new URL(options.jwksUri), {
    cacheMaxAge: options.cacheMaxAgeMs ?? 10 * 60_000,
    cooldownDuration: options.cooldownMs ?? 30_000,
    timeoutDuration: options.timeoutMs ?? 5_000,
  });
  return new JwtVerifier(keys, options);
}

export interface LocalKeySetOptions extends JwtRules {
  /**
   * The public keys tokens are signed with: a set, or a function answering the current set (read
   * on each verification, so that a rotation is seen at once).
   */
  keys: JSONWebKeySet | (() => JSONWebKeySet);
}

/**
 * Mode "the host's own authorization server": its public keys handed in-process, no HTTP round
 * trip. The authorization server issues JWTs with `iss` its issuer URL and `aud` the resource.
 */
export function localKeySetVerifier(options: LocalKeySetOptions): JwtVerifier {
  const { keys } = options;
  if (typeof keys !== 'function') return new JwtVerifier(createLocalJWKSet(keys), options);
  let current: JSONWebKeySet | undefined;
  let resolver: JWTVerifyGetKey | undefined;
  const getKey: JWTVerifyGetKey = (header, token) => {
    const set = keys();
    if (set !== current || !resolver) {
      current = set;
      resolver = createLocalJWKSet(set);
    }
    return resolver(header, token);
  };
  return new JwtVerifier(getKey, options);
}
