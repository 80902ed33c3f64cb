import { describe, expect, it } from 'vitest';
import { AccessTokens } from '../src/auth/access-tokens.js';
import { hostConfigSchema } from '../src/config/config-schema.js';
import { validateConfig } from '../src/config/load-config.js';
import { cli } from './support.js';

type Node = { type?: string; minimum?: number; exclusiveMinimum?: number; maximum?: number } & Record<
  string,
  unknown
>;

/** Every numeric setting of the schema, by its dotted key. */
function numericSettings(node: unknown, path: string, out: [string, Node][] = []): [string, Node][] {
  if (node === null || typeof node !== 'object') return out;
  const n = node as Node;
  if (n.type === 'integer' || n.type === 'number') out.push([path, n]);
  for (const [key, child] of Object.entries((n.properties as Record<string, unknown>) ?? {}))
    numericSettings(child, path ? `${path}.${key}` : key, out);
  if (n.additionalProperties && typeof n.additionalProperties === 'object')
    numericSettings(n.additionalProperties, `${path}.<name>`, out);
  for (const branch of (n.oneOf as unknown[]) ?? []) numericSettings(branch, path, out);
  return out;
}

describe('numeric settings', () => {
  it('each has a minimum and a maximum, and durations in ms fit a timer', () => {
    const settings = numericSettings(hostConfigSchema, '');
    expect(settings.length).toBeGreaterThan(15);
    for (const [key, s] of settings) {
      expect(s.minimum ?? s.exclusiveMinimum, `${key} minimum`).toBeTypeOf('number');
      expect(s.maximum, `${key} maximum`).toBeTypeOf('number');
      if (key.endsWith('Ms')) expect(s.maximum, key).toBeLessThan(2 ** 31);
    }
  });

  it('refuses engine.timeoutMs of 2^31, which Node would fire at once', () => {
    expect(() => validateConfig({ engine: { timeoutMs: 2 ** 31 } })).toThrow(
      /'engine\.timeoutMs' must be <= 3600000/,
    );
    expect(() => validateConfig({ http: { maxBodyBytes: 2 ** 40 } })).toThrow(
      /'http\.maxBodyBytes' must be <=/,
    );
  });
});

describe('access tokens', () => {
  const A = 'alice-token-0123456789';
  const B = 'bob-token-012345678901';

  it('refuses a user listed twice in TOOLHOST_ACCESS_TOKENS, naming the user', () => {
    expect(() => AccessTokens.fromConfig({}, { TOOLHOST_ACCESS_TOKENS: `alice:${A},alice:${B}` })).toThrow(
      /names user 'alice' twice/,
    );
  });

  it('refuses one token given to two users, naming them and not the token', () => {
    const attempt = () =>
      AccessTokens.fromConfig(
        { http: { accessTokens: { alice: A } } },
        { TOOLHOST_ACCESS_TOKENS: `bob:${A}` },
      );
    expect(attempt).toThrow(/users 'alice' and 'bob' have the same token/);
    try {
      attempt();
    } catch (e) {
      expect((e as Error).message).not.toContain(A);
    }
    expect(() => new AccessTokens({ alice: A, bob: A })).toThrow(/same token/);
  });

  it("takes the environment's token of a user over the file's, as elsewhere", () => {
    const tokens = AccessTokens.fromConfig(
      { http: { accessTokens: { alice: A } } },
      { TOOLHOST_ACCESS_TOKENS: `alice:${B}` },
    );
    expect(tokens.userForToken(B)).toBe('alice');
    expect(tokens.userForToken(A)).toBeUndefined();
  });

  it('stops `serve --http` at start with the message', async () => {
    const run = await cli(['--plugins', 'toolhost-plugin-echo', 'serve', '--http', '0'], {
      TOOLHOST_ACCESS_TOKENS: `alice:${A},bob:${A}`,
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/users 'alice' and 'bob' have the same token/);
    expect(run.stderr).not.toContain(A);
  });
});
