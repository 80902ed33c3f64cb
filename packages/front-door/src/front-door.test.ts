import { describe, expect, it } from 'vitest';
import { type Caller, FrontDoor, type FrontDoorSettings } from './front-door.js';
import type { Verification, VerifiedToken } from './token-verifier.js';

type Scope = 'read' | 'write';
const SCOPES = ['read', 'write'] as const;
/** `write` includes `read`, as the host's scopes do. */
const grants = (scopes: Iterable<Scope>) => {
  const granted = new Set<Scope>(scopes);
  if (granted.has('write')) granted.add('read');
  return granted;
};

/** A verifier that answers from a table, and the first-use callback it was handed. */
function doorWith(answers: Record<string, Verification>, settings: Partial<FrontDoorSettings<Scope>> = {}) {
  const seen: { resource?: string; onFirstUse?: (token: VerifiedToken) => void } = {};
  const door = new FrontDoor<Scope>(
    {
      authorizationServers: ['https://idp.example.test'],
      verifier: (resource, onFirstUse) => {
        Object.assign(seen, { resource, onFirstUse });
        return {
          verify: async (token) =>
            answers[token] ?? { ok: false, rejection: { kind: 'invalid', reason: 'unknown "token"' } },
        };
      },
      ...settings,
    },
    'https://tools.example.test/mcp',
    { scopes: SCOPES, grants, onSignIn: () => {} },
  );
  return { door, seen };
}

const verified = (scopes: string[]): Verification => ({
  ok: true,
  token: { subject: 'alice', scopes, clientId: 'client-1' },
});

describe('FrontDoor', () => {
  it('names its metadata at the path form of the resource (RFC 9728 §3.1) and serves both forms', () => {
    const { door, seen } = doorWith({});
    expect(seen.resource).toBe('https://tools.example.test/mcp');
    expect(seen.onFirstUse).toBeTypeOf('function');
    expect(door.metadataUrl).toBe('https://tools.example.test/.well-known/oauth-protected-resource/mcp');
    expect(door.servesMetadataAt('/.well-known/oauth-protected-resource')).toBe(true);
    expect(door.servesMetadataAt('/.well-known/oauth-protected-resource/mcp')).toBe(true);
    expect(door.servesMetadataAt('/.well-known/oauth-protected-resource/other')).toBe(false);
    expect(door.metadata()).toEqual({
      resource: 'https://tools.example.test/mcp',
      authorization_servers: ['https://idp.example.test'],
      scopes_supported: ['read', 'write'],
      bearer_methods_supported: ['header'],
    });
  });

  it('sends a caller without a token to sign in, asking every scope', async () => {
    const { door } = doorWith({});
    const refusal = await door.admit(undefined);
    expect(refusal).toMatchObject({ status: 401, outcome: 'unauthenticated' });
    expect((refusal as { headers: Record<string, string> }).headers['www-authenticate']).toBe(
      'Bearer resource_metadata="https://tools.example.test/.well-known/oauth-protected-resource/mcp", scope="read write"',
    );
  });

  it('reads the issuer’s scope names, in full or by their last segment, with what each includes', async () => {
    const { door } = doorWith(
      { a: verified(['api://tools/write', 'openid']), b: verified(['read']), c: verified(['profile']) },
      { scopeNames: { read: 'api://tools/read', write: 'api://tools/write' } },
    );
    expect(door.metadata().scopes_supported).toEqual(['api://tools/read', 'api://tools/write']);
    expect(await door.admit('Bearer a')).toEqual({
      userId: 'alice',
      scopes: new Set(['write', 'read']),
      clientId: 'client-1',
      via: 'oauth',
    });
    expect((await door.admit('bearer  b ')) as Caller<Scope>).toMatchObject({
      scopes: new Set(['read']),
    });
    const none = (await door.admit('Bearer c')) as Caller<Scope>;
    expect(none.scopes.size).toBe(0);
    const refusal = door.checkScope(none, 'read');
    expect(refusal).toMatchObject({ status: 403, outcome: 'insufficient_scope', user: 'alice' });
    expect(refusal?.headers['www-authenticate']).toContain('error="insufficient_scope"');
    expect(refusal?.headers['www-authenticate']).toContain('scope="api://tools/read"');
  });

  it('honours a static token with every scope, and only when one is handed in', async () => {
    const { door } = doorWith({});
    const staticTokens = { userForToken: (t: string) => (t === 'ops-token' ? 'robot' : undefined) };
    expect(await door.admit('Bearer ops-token', staticTokens)).toEqual({
      userId: 'robot',
      scopes: new Set(SCOPES),
      via: 'access_token',
    });
    expect(await door.admit('Bearer ops-token')).toMatchObject({ status: 401, outcome: 'invalid_token' });
  });

  it('answers 401 for a refused token, quoting its reason safely, and 503 where it could not be checked', async () => {
    const { door } = doorWith({
      down: { ok: false, rejection: { kind: 'unavailable', reason: 'issuer timed out' } },
    });
    const invalid = await door.admit('Bearer nope');
    expect(invalid).toMatchObject({ status: 401, outcome: 'invalid_token' });
    expect((invalid as { headers: Record<string, string> }).headers['www-authenticate']).toContain(
      `error="invalid_token", error_description="unknown 'token'"`,
    );
    expect(await door.admit('Bearer down')).toMatchObject({
      status: 503,
      outcome: 'token_unverifiable',
      headers: { 'retry-after': '5' },
    });
  });
});
