import type { StoredToken, ToolOutcome } from '@toolhost/core';
import { expect } from 'vitest';
import type { RecordingUpstream } from '../../testing/src/recording-upstream.js';
import type { HostConfig } from '../src/config/host-config.js';
import { createHost, type Host } from '../src/host.js';
import type { HostOptions } from '../src/host-options.js';
import { echoAuthProviders, type FakeOAuthServer, fakeClient, storeAuthorized } from './fake-oauth-server.js';
import { fixtureApp, tokenStoreOf } from './support.js';

// A failover in the replication window, written once for each deployment that fails over
// (Sentinel, Cluster): what the old master acknowledged must be on the promoted one.

/** What a deployment's failover test gives the scenario. */
export interface FailoverUnderTest {
  host: Host;
  oauth: FakeOAuthServer;
  upstream: RecordingUpstream;
  /** Alice's token as the store holds it now (read from Redis, not from the host's memory). */
  storedToken(): Promise<StoredToken | undefined>;
  /**
   * Resolves once every replica holds what its master has so far (where there are several to
   * choose from at a failover): a replica a loaded machine left behind, promoted, would lack
   * writes made before the window, which no deployment keeps.
   */
  settled?(): Promise<void>;
  /** Opens the replication window: what the masters acknowledge from now on is on them alone. */
  cutReplication(): Promise<void>;
  /** Kills the master(s) with what they alone hold; resolves once promoted replicas serve. */
  failOver(): Promise<void>;
}

/** TOOLHOST_TOKEN_KEY of the failover tests' hosts. */
export const FAILOVER_TOKEN_KEY = 'token-encryption-key-for-failover';

/** The echo tool set's host on `store`, Alice's OAuth at `oauth`. */
export function failoverHost(
  store: HostConfig['store'],
  upstream: RecordingUpstream,
  oauth: FakeOAuthServer,
  options: Omit<HostOptions, 'configDir' | 'env'> & { env?: Record<string, string> } = {},
): Promise<Host> {
  return createHost(
    {
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl: upstream.url } },
      auth: {
        providers: echoAuthProviders(oauth, { redirectUri: 'http://127.0.0.1:9/oauth/callback/echo-auth' }),
      },
      store,
    },
    {
      ...options,
      configDir: fixtureApp,
      env: {
        TOOLHOST_TOKEN_KEY: FAILOVER_TOKEN_KEY,
        ECHO_KEY: 'echo-static-key',
        ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret,
        ...options.env,
      },
    },
  );
}

const code = (o: ToolOutcome) => (o.ok ? undefined : o.error.code);
const CREATE = { mode: 'execute', request_body: JSON.stringify({ name: 'n1' }) };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A token rotated, and a keyed write made, while the replicas are cut off; the master then dies
 * and a replica is promoted. The rotated token is in the promoted master (the next refresh sends
 * it, not the used one, which the vendor would refuse as reused), and the keyed write is sent
 * once in all: refused before sending while no replica could hold its attempt, or answered from
 * its stored outcome. The replicas are cut off while the vendor refreshes: a refresh whose
 * refresh-sent mark no replica holds is not sent, so the mark is on them, and the rotated token
 * on the master alone.
 */
export async function acknowledgedWritesSurviveFailover(s: FailoverUnderTest): Promise<void> {
  const { host, oauth, upstream } = s;
  const tokens = tokenStoreOf(host);
  const stale = await storeAuthorized(oauth, tokens, 'alice', Date.now() - 1000);
  // The rotated token expires soon: the call after the failover refreshes with whatever
  // refresh token the store then has.
  oauth.expiresIn = 2;
  await s.settled?.();

  oauth.afterRefreshing = () => s.cutReplication();
  const refreshed = await host.callTool('EchoApi.GetItem', { item_id: 'i1' }, { userId: 'alice' });
  oauth.afterRefreshing = undefined;
  expect(code(refreshed), JSON.stringify([refreshed, oauth.grants])).toBeUndefined();
  expect(oauth.grants).toEqual([{ grant_type: 'refresh_token', refresh_token: stale.refreshToken }]);
  // A keyed write: its attempt must be on a replica before its request may leave.
  const keyed = await host.callTool('EchoApi.CreateItem', CREATE, { userId: 'alice', idempotencyKey: 'k1' });

  await s.failOver();
  const deadline = Date.now() + 30_000;
  let stored: StoredToken | undefined;
  while (Date.now() < deadline) {
    stored = await s.storedToken().catch(() => undefined);
    if (stored && stored.refreshToken !== stale.refreshToken) break;
    await sleep(200);
  }
  expect(stored?.refreshToken).not.toBe(stale.refreshToken);
  while (Date.now() <= (stored?.expiresAt ?? 0)) await sleep(200);
  // Retryable and nothing sent: the store may still be settling after the failover (a refresh
  // waits until a replica can hold its mark; a call that waited 10 s for it is told to try again,
  // upstream_unavailable, while the refresh goes on). The vendor's grants below say nothing was
  // sent twice.
  const settling = (o: ToolOutcome) => code(o) === 'store_unavailable' || code(o) === 'upstream_unavailable';
  let after = await host.callTool('EchoApi.GetItem', { item_id: 'i2' }, { userId: 'alice' });
  while (settling(after) && Date.now() < deadline) {
    await sleep(300);
    after = await host.callTool('EchoApi.GetItem', { item_id: 'i2' }, { userId: 'alice' });
  }
  expect(code(after), JSON.stringify([after, oauth.grants])).toBeUndefined();
  expect(oauth.grants).toHaveLength(2);
  expect(oauth.grants[1]?.refresh_token).toBe(stored?.refreshToken);

  let again = await host.callTool('EchoApi.CreateItem', CREATE, { userId: 'alice', idempotencyKey: 'k1' });
  while (code(again) === 'store_unavailable' && Date.now() < deadline) {
    await sleep(300);
    again = await host.callTool('EchoApi.CreateItem', CREATE, { userId: 'alice', idempotencyKey: 'k1' });
  }
  expect(code(again), JSON.stringify(again)).toBeUndefined();
  expect(code(keyed) === undefined || code(keyed) === 'store_unavailable').toBe(true);
  expect(upstream.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
}
