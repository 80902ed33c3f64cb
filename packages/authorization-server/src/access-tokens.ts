import { randomUUID } from 'node:crypto';
import { createLocalJWKSet, errors, jwtVerify, SignJWT } from 'jose';
import type { Grant } from './grants.js';
import { keySetOf, SIGNING_ALGORITHM, type SigningKey } from './signing-keys.js';

/** An access token as the resource reads it; the same shape as the host's token verifier answers. */
export interface VerifiedAccessToken {
  subject: string;
  scopes: readonly string[];
  clientId?: string;
  expiresAt?: number;
  audience: string;
  grantId: string;
}

export type AccessTokenVerification =
  | { ok: true; token: VerifiedAccessToken }
  | { ok: false; rejection: { kind: 'invalid' | 'unavailable'; reason: string } };

/** Signs short-lived JWT access tokens (RFC 9068), bound to one resource (RFC 8707). */
export async function signAccessToken(
  key: SigningKey,
  issuer: string,
  grant: Grant,
  scopes: readonly string[],
  lifetimeSeconds: number,
): Promise<string> {
  return new SignJWT({ client_id: grant.clientId, scope: scopes.join(' '), gid: grant.id })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: key.kid, typ: 'at+jwt' })
    .setIssuer(issuer)
    .setSubject(grant.subject)
    .setAudience(grant.resource)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime(`${lifetimeSeconds}s`)
    .sign(key.privateKey);
}

/**
 * Checks an access token this server issued: signature, `typ`, issuer, audience (one of the
 * resources), expiry, and that its grant still stands (revocation, a replayed code or refresh
 * token), and the sign-in it was made with holds. `grantRefusal` is the store read, saying why
 * the grant may not be used (undefined where it may); callers cache answers briefly.
 */
export async function verifyAccessToken(
  token: string,
  key: SigningKey,
  rules: { issuer: string; audiences: readonly string[] },
  grantRefusal: (grantId: string) => Promise<string | undefined>,
): Promise<AccessTokenVerification> {
  try {
    const { payload } = await jwtVerify(token, createLocalJWKSet(keySetOf(key)), {
      issuer: rules.issuer,
      audience: [...rules.audiences],
      algorithms: [SIGNING_ALGORITHM],
      typ: 'at+jwt',
      requiredClaims: ['sub', 'exp', 'gid'],
    });
    const grantId = String(payload.gid);
    const refused = await grantRefusal(grantId);
    if (refused !== undefined) return invalid(refused);
    return {
      ok: true,
      token: {
        subject: String(payload.sub),
        scopes: typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [],
        ...(typeof payload.client_id === 'string' ? { clientId: payload.client_id } : {}),
        ...(payload.exp !== undefined ? { expiresAt: payload.exp } : {}),
        audience: Array.isArray(payload.aud) ? String(payload.aud[0]) : String(payload.aud),
        grantId,
      },
    };
  } catch (e) {
    if (e instanceof errors.JWTExpired) return invalid('the token has expired');
    if (e instanceof errors.JWTClaimValidationFailed)
      return invalid(`the token's ${e.claim} claim is not accepted here`);
    if (e instanceof errors.JOSEError)
      return invalid('the token is not one this authorization server issued');
    return { ok: false, rejection: { kind: 'unavailable', reason: 'the token could not be checked now' } };
  }
}

function invalid(reason: string): AccessTokenVerification {
  return { ok: false, rejection: { kind: 'invalid', reason } };
}
