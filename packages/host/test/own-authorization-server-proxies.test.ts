import { afterEach, describe, expect, it } from 'vitest';
import { AccessTokens } from '../src/auth/access-tokens.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { TEST_REDIRECT } from './own-authorization-flow.js';
import { ALICE_ACCESS_TOKEN, capturedLogger, fixtureApp } from './support.js';

const running: { host: Host; server: HttpServerHandle }[] = [];
afterEach(async () => {
  for (const { host, server } of running.splice(0)) {
    await server.close();
    await host.close();
  }
});

/** The host's own authorization server, `http` beside it; its origin and what it logged. */
async function start(http: object, env: Record<string, string> = {}) {
  const log = capturedLogger('info');
  const host = await createHost(
    { plugins: ['toolhost-plugin-echo'], http: { authorization: { mode: 'host' }, ...http } },
    { configDir: fixtureApp, env },
  );
  const server = await serveHttp(host, {
    port: 0,
    accessTokens: new AccessTokens({ alice: ALICE_ACCESS_TOKEN }),
    logger: log.logger,
  });
  running.push({ host, server });
  return { origin: new URL(server.url).origin, logged: log.lines };
}

/** Registers a client as a proxy would pass it on: the status. */
async function register(origin: string, forwardedFor: string): Promise<number> {
  const res = await fetch(`${origin}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
    body: JSON.stringify({ redirect_uris: [TEST_REDIRECT], token_endpoint_auth_method: 'none' }),
  });
  await res.body?.cancel();
  return res.status;
}

/** The default bound: 20 registrations per address an hour. */
async function registerUpToTheBound(origin: string, forwardedFor: string): Promise<void> {
  for (let i = 0; i < 20; i += 1) expect(await register(origin, forwardedFor)).toBe(201);
  expect(await register(origin, forwardedFor)).toBe(429);
}

describe("the own authorization server's callers behind a proxy", () => {
  it('counts each client by the address the trusted proxy forwards, the rightmost one it did not add', async () => {
    const { origin, logged } = await start({ trustedProxies: ['loopback'] });
    await registerUpToTheBound(origin, '203.0.113.7');
    expect(await register(origin, '198.51.100.2')).toBe(201);
    // A client that writes the header itself is still counted as the address the proxy saw.
    expect(await register(origin, '198.51.100.9, 203.0.113.7')).toBe(429);
    expect(logged()).not.toContain('trustedProxies is not set');
  });

  it('takes the proxies from TOOLHOST_TRUSTED_PROXIES too', async () => {
    const { origin } = await start({}, { TOOLHOST_TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1/8' });
    await registerUpToTheBound(origin, '203.0.113.7');
    expect(await register(origin, '198.51.100.2')).toBe(201);
  });

  it('without trusted proxies, ignores X-Forwarded-For and says once in the log that all count as one', async () => {
    const { origin, logged } = await start({});
    await registerUpToTheBound(origin, '203.0.113.7');
    expect(await register(origin, '198.51.100.2')).toBe(429);
    const warnings = logged()
      .split('\n')
      .filter((line) => line.includes('http.trustedProxies is not set'));
    expect(warnings).toHaveLength(1);
  });

  it('refuses to start on a proxy that is no address or range, naming the setting', async () => {
    const host = await createHost(
      {
        plugins: ['toolhost-plugin-echo'],
        http: { authorization: { mode: 'host' }, trustedProxies: ['10.0.0.0/33'] },
      },
      { configDir: fixtureApp },
    );
    try {
      await expect(
        serveHttp(host, { port: 0, accessTokens: new AccessTokens({ alice: ALICE_ACCESS_TOKEN }) }),
      ).rejects.toThrow(/http\.trustedProxies: .*10\.0\.0\.0\/33.*expected IP addresses, CIDR ranges/);
    } finally {
      await host.close();
    }
  });
});
