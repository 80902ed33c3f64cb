import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT, UnsecuredJWT } from 'jose';

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

import { beforeAll, describe, expect, it } from 'vitest';
import { CachedVerifier } from './cached-verifier.js';
import { allowedAlgorithms } from './jwt-algorithms.js';
import { localKeySetVerifier, remoteJwksVerifier, subjectOf, type TokenVerifier } from './token-verifier.js';

const ISSUER = 'https://idp.example.test';
const RESOURCE = 'https://tools.example.test/mcp';

let signingKey: SigningKey;
let otherKey: SigningKey;
let jwk: JWK;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  signingKey = pair.privateKey;
  jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  otherKey = (await generateKeyPair('ES256')).privateKey;
});

const now = () => Math.floor(Date.now() / 1000);

function token(claims: Record<string, unknown> = {}, o: { key?: SigningKey; kid?: string } = {}) {
  return new SignJWT({ scope: 'tools:read openid', client_id: 'client-1', ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: o.kid ?? 'k1', typ: 'at+jwt' })
    .setIssuer((claims.iss as string) ?? ISSUER)
    .setAudience((claims.aud as string) ?? RESOURCE)
    .setSubject((claims.sub as string) ?? 'alice')
    .setIssuedAt()
    .setExpirationTime((claims.exp as number) ?? now() + 300)
    .sign(o.key ?? signingKey);
}

const verifier = () => localKeySetVerifier({ issuer: ISSUER, audience: RESOURCE, keys: { keys: [jwk] } });

describe('JWT access tokens', () => {
  it('accepts a token of this issuer for this resource, naming its user, scopes and client', async () => {
    const result = await verifier().verify(await token());
    expect(result).toEqual({
      ok: true,
      token: {
        subject: 'alice',
        scopes: ['tools:read', 'openid'],
        clientId: 'client-1',
        expiresAt: expect.any(Number),
      },
    });
  });

  it.each([
    ['another audience', () => token({ aud: 'https://other.example.test/mcp' }), 'another resource'],
    ['another issuer', () => token({ iss: 'https://evil.example.test' }), 'another issuer'],
    ['an expired token', () => token({ exp: now() - 120 }), 'expired'],
    ['a token not valid yet', () => token({ nbf: now() + 600 }), 'not valid yet'],
    ['a key not in the set', () => token({}, { kid: 'unknown' }), 'not among'],
    ['a signature by another key', () => token({}, { key: otherKey }), 'signature'],
  ])('refuses %s as invalid', async (_what, make, reason) => {
    const result = await verifier().verify(await make());
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.rejection.kind).toBe('invalid');
      expect(result.rejection.reason).toContain(reason);
    }
  });

  it('refuses an unsigned token (alg: none)', async () => {
    const unsigned = new UnsecuredJWT({ sub: 'alice', scope: 'tools:write' })
      .setIssuer(ISSUER)
      .setAudience(RESOURCE)
      .setExpirationTime(now() + 300)
      .encode();
    const result = await verifier().verify(unsigned);
    expect(result).toMatchObject({ ok: false, rejection: { kind: 'invalid' } });
  });

  it('takes no subject that could not be a user id: long, or with characters that do not show', () => {
    for (const sub of [
      'ana\u001b[2J',
      'ana\u009b2J',
      'ana\u202eoib',
      'a\u2028b',
      'a\ud800',
      'a'.repeat(257),
      '',
    ])
      expect(subjectOf({ sub })).toBeUndefined();
    expect(subjectOf({ sub: 'ana@team.example' })).toBe('ana@team.example');
    expect(subjectOf({ sub: 'Zürich 東京' })).toBe('Zürich 東京');
  });

  it('refuses a token without its subject claim, and reads a configured one', async () => {
    const noSub = await new SignJWT({ scope: 'tools:read', email: 'a@example.test' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(RESOURCE)
      .setExpirationTime(now() + 300)
      .sign(signingKey);
    expect(await verifier().verify(noSub)).toEqual({
      ok: false,
      rejection: { kind: 'invalid', reason: "the token has no usable 'sub' claim" },
    });
    const byEmail = localKeySetVerifier({
      issuer: ISSUER,
      audience: RESOURCE,
      keys: { keys: [jwk] },
      subjectClaim: 'email',
    });
    expect(await byEmail.verify(noSub)).toMatchObject({ ok: true, token: { subject: 'a@example.test' } });
  });

  it('refuses an email as the user id where the token says its issuer has not verified it', async () => {
    const byEmail = localKeySetVerifier({
      issuer: ISSUER,
      audience: RESOURCE,
      keys: { keys: [jwk] },
      subjectClaim: 'email',
    });
    const withEmail = (verified: unknown) =>
      new SignJWT({ sub: 'mallory', email: 'alice@example.test', email_verified: verified })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(ISSUER)
        .setAudience(RESOURCE)
        .setExpirationTime(now() + 300)
        .sign(signingKey);
    for (const unverified of [false, 'false'])
      expect(await byEmail.verify(await withEmail(unverified))).toEqual({
        ok: false,
        rejection: { kind: 'invalid', reason: "the token's email is not verified by its issuer" },
      });
    expect(await byEmail.verify(await withEmail(true))).toMatchObject({
      ok: true,
      token: { subject: 'alice@example.test' },
    });
    // With `sub` as the user id, the email's state is none of the check's business.
    expect(await verifier().verify(await withEmail(false))).toMatchObject({
      ok: true,
      token: { subject: 'mallory' },
    });
  });

  it('sees a rotated key set at once when handed a function', async () => {
    let set = { keys: [] as JWK[] };
    const rotating = localKeySetVerifier({ issuer: ISSUER, audience: RESOURCE, keys: () => set });
    const t = await token();
    expect((await rotating.verify(t)).ok).toBe(false);
    set = { keys: [jwk] };
    expect((await rotating.verify(t)).ok).toBe(true);
  });

  it("fetches the issuer's key set once, and again when a token names a key it has not seen (rotation)", async () => {
    const rotated = await generateKeyPair('ES256');
    const next: JWK = { ...(await exportJWK(rotated.publicKey)), kid: 'k2', alg: 'ES256', use: 'sig' };
    let served: JWK[] = [jwk];
    let fetches = 0;
    const server = createServer((_req, res) => {
      fetches += 1;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: served }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const remote = remoteJwksVerifier({
        issuer: ISSUER,
        audience: RESOURCE,
        jwksUri: `http://127.0.0.1:${port}/jwks`,
        cooldownMs: 0,
      });
      expect((await remote.verify(await token())).ok).toBe(true);
      expect((await remote.verify(await token({ sub: 'bob' }))).ok).toBe(true);
      expect(fetches).toBe(1);
      served = [next];
      const signedByNext = await token({}, { key: rotated.privateKey, kid: 'k2' });
      expect((await remote.verify(signedByNext)).ok).toBe(true);
      expect(fetches).toBe(2);
      // A key the issuer never published stays refused after the set is fetched again.
      expect((await remote.verify(await token({}, { key: otherKey, kid: 'k3' }))).ok).toBe(false);
    } finally {
      server.close();
    }
  });

  it('never accepts none or HMAC algorithms from configuration', () => {
    expect(() => allowedAlgorithms(['RS256', 'none'])).toThrow(/none/);
    expect(() => allowedAlgorithms(['HS256'])).toThrow(/HS256/);
  });
});

describe('the validation cache', () => {
  it('answers a token again without verifying it, until the TTL, never past its expiry', async () => {
    let calls = 0;
    let clock = 1_000_000;
    const inner: TokenVerifier = {
      async verify() {
        calls++;
        return { ok: true, token: { subject: 'alice', scopes: [], expiresAt: 1_000_000 / 1000 + 30 } };
      },
    };
    const cached = new CachedVerifier(inner, { ttlMs: 60_000, now: () => clock });
    await cached.verify('t');
    await cached.verify('t');
    expect(calls).toBe(1);
    clock += 31_000; // past the token's exp, within the TTL
    await cached.verify('t');
    expect(calls).toBe(2);
  });

  it('does not remember refusals', async () => {
    let calls = 0;
    const inner: TokenVerifier = {
      async verify() {
        calls++;
        return { ok: false, rejection: { kind: 'unavailable', reason: 'down' } };
      },
    };
    const cached = new CachedVerifier(inner);
    await cached.verify('t');
    await cached.verify('t');
    expect(calls).toBe(2);
  });
});

describe('first use', () => {
  it('is told once per token, not at each re-check after the cache', async () => {
    let clock = 1_000_000;
    const told: string[] = [];
    const inner: TokenVerifier = {
      async verify(t) {
        return { ok: true, token: { subject: t, scopes: [], expiresAt: 1_000_000 / 1000 + 3600 } };
      },
    };
    const cached = new CachedVerifier(inner, {
      ttlMs: 1000,
      now: () => clock,
      onAccepted: (token) => told.push(token.subject),
    });
    await cached.verify('alice');
    clock += 5000; // past the cache, before the token's expiry
    await cached.verify('alice');
    await cached.verify('bob');
    expect(told).toEqual(['alice', 'bob']);
  });
});
