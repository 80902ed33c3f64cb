import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { TokenCipher } from '@toolhost/credentials';
import { RedisTokenStore } from '@toolhost/redis-store';
import { describe, expect, it } from 'vitest';
import { startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { SHARED_STORE } from '../src/assemble-host.js';
import { doctorReport } from '../src/cli/doctor.js';
import type { HostConfig } from '../src/config/host-config.js';
import { disconnect, listConnections } from '../src/connections.js';
import { containerOf, type Host } from '../src/host.js';
import { resolveService } from '../src/services.js';
import { fakeClient, storeAuthorized } from './fake-oauth-server.js';
import { startRedisServer } from './redis-server.js';
import {
  oneRefreshAcrossReplicas,
  tokenChangeReachesEveryReplica,
  tokensOnEveryReplica,
} from './replica-scenarios.js';
import {
  admin,
  authorizeAlice,
  echoConfig,
  errorCode,
  getItem,
  logs,
  oauth,
  redis,
  replica,
  replicaEnv,
  suite,
  TOKEN_KEY,
  upstream,
  useSharedStoreSuite,
} from './shared-store-setup.js';
import { ALICE_ACCESS_TOKEN, spawnHttpHost, tokenStoreOf } from './support.js';

useSharedStoreSuite();

// Replicas sharing one Redis: start-up, tokens, their encryption, refreshes and token-request
// deadlines. Serving (pacing, faults, idempotency, results, bounds) is in shared-store-serving.
describe('shared store (Redis): start-up', () => {
  it('refuses to start with Redis but without TOOLHOST_TOKEN_KEY', async () => {
    await expect(
      replica(echoConfig(), {
        TOOLHOST_REDIS_URL: redis.url,
        ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret,
      }),
    ).rejects.toThrow(/TOOLHOST_TOKEN_KEY is not/);
  });

  it('refuses to start when Redis is unreachable, naming the URL without its password', async () => {
    const dead = await startRedisServer();
    await dead.close();
    const url = `redis://admin:hunter2-redis-password@127.0.0.1:${dead.port}`;
    const failure = replica(echoConfig(), replicaEnv({ TOOLHOST_REDIS_URL: url }));
    await expect(failure).rejects.toThrow(`Cannot reach the shared store at redis://127.0.0.1:${dead.port}`);
    await expect(failure).rejects.not.toThrow(/hunter2/);
  });

  it('names the cause when Redis refuses the connection, the password, or TLS', async () => {
    const dead = await startRedisServer();
    await dead.close();
    await expect(
      replica(echoConfig(), replicaEnv({ TOOLHOST_REDIS_URL: `redis://127.0.0.1:${dead.port}` })),
    ).rejects.toThrow(/connection refused/);
    const locked = await startRedisServer(['--requirepass', 'the-right-redis-password']);
    try {
      const wrong = replica(
        echoConfig(),
        replicaEnv({ TOOLHOST_REDIS_URL: `redis://:the-wrong-password@127.0.0.1:${locked.port}` }),
      );
      await expect(wrong).rejects.toThrow(/Redis refused the credentials/);
      await expect(wrong).rejects.not.toThrow(/the-wrong-password/);
      await expect(
        replica(echoConfig(), replicaEnv({ TOOLHOST_REDIS_URL: `redis://127.0.0.1:${locked.port}` })),
      ).rejects.toThrow(/Redis refused the credentials/);
    } finally {
      await locked.close();
    }
    // A plain Redis reached with rediss:// never answers the TLS handshake.
    await expect(
      replica(
        { ...echoConfig(), store: { connectTimeoutMs: 500 } },
        replicaEnv({ TOOLHOST_REDIS_URL: `rediss://127.0.0.1:${redis.port}` }),
      ),
    ).rejects.toThrow(/TLS handshake/);
  });

  it('puts store.keyPrefix before every key it writes and finds them again', async () => {
    const config = { ...echoConfig(), store: { keyPrefix: 'staging:' } };
    const a = await replica(config, replicaEnv({ ECHO_KEY: 'echo-static-key-for-prefix' }));
    const b = await replica(config);
    const token = await authorizeAlice(a);
    expect(await admin.exists('staging:toolhost:token:echo-auth:alice')).toBe(1);
    expect(await admin.exists('staging:toolhost:token-salt')).toBe(1);
    // A keyed write's records and its user's place among their bounded keys, prefixed too.
    const create = { mode: 'execute', request_body: JSON.stringify({ name: 'n1' }) };
    expect(
      (await a.callTool('EchoApi.CreateItem', create, { userId: 'alice', idempotencyKey: 'k1' })).ok,
    ).toBe(true);
    expect(await admin.exists('staging:toolhost:places:{alice}:idempotency')).toBe(1);
    expect(await admin.keys('toolhost:*')).toEqual([]);
    expect(await tokenStoreOf(b).get('echo-auth', 'alice')).toEqual(token);
    expect((await listConnections(b)).map((c) => c.userId)).toEqual(['alice']);
    // Another deployment on the same Redis sees none of it.
    const other = await replica();
    expect(await listConnections(other)).toEqual([]);
  });

  it('makes the CLI exit with that message, and serve once Redis answers', async () => {
    const dead = await startRedisServer();
    await dead.close();
    const env = {
      TOOLHOST_TOKEN_KEY: TOKEN_KEY,
      ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret,
      TOOLHOST_REDIS_URL: `redis://:hunter2-redis-password@127.0.0.1:${dead.port}`,
    };
    const failed = await spawnHttpHost(echoConfig(), env).then(
      () => '',
      (e: Error) => e.message,
    );
    expect(failed).toContain('host exited 1');
    expect(failed).toContain(`Cannot reach the shared store at redis://127.0.0.1:${dead.port}`);
    expect(failed).not.toContain('hunter2');

    const served = await spawnHttpHost(echoConfig(), { ...env, TOOLHOST_REDIS_URL: redis.url });
    try {
      expect((await fetch(new URL('/healthz', served.url))).status).toBe(200);
      expect(await admin.exists('toolhost:token-salt')).toBe(1);
    } finally {
      served.child.kill('SIGTERM');
      expect(await served.exited).toBe(0);
    }
  });

  it('takes the URL from the config key store.redisUrl too', async () => {
    const env = replicaEnv();
    delete env.TOOLHOST_REDIS_URL;
    const a = await replica({ ...echoConfig(), store: { redisUrl: redis.url } }, env);
    await authorizeAlice(a);
    expect(await admin.exists('toolhost:token:echo-auth:alice')).toBe(1);
  });
});

describe('shared store (Redis): tokens', () => {
  it('keeps tokens sealed in Redis, read, used, listed and ended from every replica', async () => {
    await tokensOnEveryReplica(suite());
  });

  it("drops a replica's copy of a token as soon as another replica changes it", async () => {
    await tokenChangeReachesEveryReplica(suite());
  });

  it('refuses to read tokens sealed with another key', async () => {
    const a = await replica();
    await authorizeAlice(a);
    // The shared salt stays; only the secret differs, as on a replica configured wrongly.
    const b = await replica(
      echoConfig(),
      replicaEnv({ TOOLHOST_TOKEN_KEY: 'another-key-of-16-chars-or-more' }),
    );
    const outcome = await getItem(b, 'i1');
    expect(errorCode(outcome)).toBe('internal_error');
    expect(upstream.requests).toHaveLength(0);
  });
});

describe('shared store (Redis): encryption that cannot split', () => {
  const SALT = 'toolhost:token-salt';
  const token = (name: string) => ({ accessToken: `${name}-access`, scopes: ['items.read'] });
  const sharedOf = (host: Host) => resolveService(containerOf(host), SHARED_STORE);

  it('keeps every token readable everywhere after Redis is emptied and a new replica writes its salt first', async () => {
    const a = await replica();
    const b = await replica();
    await admin.flushall();
    // C starts while the salt is missing, and writes one of its own.
    const c = await replica();
    await tokenStoreOf(a).set('echo-auth', 'alice', token('alice'));
    await tokenStoreOf(c).set('echo-auth', 'bob', token('bob'));
    for (const host of [a, b, c]) {
      expect(await tokenStoreOf(host).get('echo-auth', 'alice')).toEqual(token('alice'));
      expect(await tokenStoreOf(host).get('echo-auth', 'bob')).toEqual(token('bob'));
    }
    // Cookies signed on one replica are accepted on the others.
    expect(sharedOf(a).signingKey('oauth-flow-binding')).toEqual(
      sharedOf(c).signingKey('oauth-flow-binding'),
    );
    expect(logs).toContain('shared token salt changed in Redis');
  });

  it('writes the salt back at the next read of a running replica, and a new replica then uses it', async () => {
    const a = await replica();
    const before = await admin.get(SALT);
    await tokenStoreOf(a).set('echo-auth', 'alice', token('alice'));
    await admin.flushall();
    expect(await tokenStoreOf(a).get('echo-auth', 'alice')).toBeUndefined();
    expect(await admin.get(SALT)).toBe(before);
    expect(logs).toContain('shared token salt was missing from Redis');
    const c = await replica();
    await tokenStoreOf(c).set('echo-auth', 'bob', token('bob'));
    expect(await tokenStoreOf(a).get('echo-auth', 'bob')).toEqual(token('bob'));
  });

  it('opens values sealed under an older salt, and doctor says what it found', async () => {
    const a = await replica();
    await tokenStoreOf(a).set('echo-auth', 'alice', token('alice'));
    await admin.set(SALT, Buffer.alloc(16, 7).toString('base64'));
    const b = await replica();
    await tokenStoreOf(b).set('echo-auth', 'bob', token('bob'));
    expect(await tokenStoreOf(a).get('echo-auth', 'bob')).toEqual(token('bob'));
    expect(await tokenStoreOf(b).get('echo-auth', 'alice')).toEqual(token('alice'));
    const report = await doctorReport(a, { env: replicaEnv() });
    expect(report.text).toContain(
      'Tokens in Redis: 2, all open with this TOOLHOST_TOKEN_KEY (sealed under 2 salts)',
    );
    expect(report.text).toContain('Shared token salt: in Redis, the same as this host uses.');
  });

  it('refuses a salt in Redis that toolhost did not write, naming the key', async () => {
    const a = await replica();
    await admin.set(SALT, 'not-a-salt');
    await expect(tokenStoreOf(a).get('echo-auth', 'alice')).rejects.toThrow(
      /shared token salt in Redis \(toolhost:token-salt\) is not a 16-byte base64 value/,
    );
    const report = await doctorReport(a, { env: replicaEnv() });
    expect(report.healthy).toBe(false);
  });

  it("does not open a value copied under another user's key", async () => {
    const a = await replica();
    await authorizeAlice(a);
    await admin.set('toolhost:token:echo-auth:bob', (await admin.get('toolhost:token:echo-auth:alice'))!);
    const outcome = await a.callTool('EchoApi.GetItem', { item_id: 'i1' }, { userId: 'bob' });
    expect(errorCode(outcome)).toBe('internal_error');
    expect(upstream.requests).toHaveLength(0);
    const report = await doctorReport(a, { env: replicaEnv() });
    expect(report.text).toContain('1 of 2 do NOT open with this TOOLHOST_TOKEN_KEY');
  });

  it("lists only the connections of a user whose id contains '*'", async () => {
    const a = await replica();
    await tokenStoreOf(a).set('echo-auth', 'alice', token('alice'));
    await tokenStoreOf(a).set('echo-auth', '*', token('star'));
    expect((await tokenStoreOf(a).list!({ userId: '*' })).map((c) => c.userId)).toEqual(['*']);
    expect((await tokenStoreOf(a).list!({ userId: 'a*' })).map((c) => c.userId)).toEqual([]);
  });
});

describe('shared store (Redis): one refresh across replicas', () => {
  it('refreshes an expired token once for 20 concurrent calls on two replicas', async () => {
    await oneRefreshAcrossReplicas(suite());
  });

  it('keeps the stored refresh token when a refresh fails half-way', async () => {
    // A token endpoint that refuses connections: the refresh never gets an answer.
    const closed = await startRecordingUpstream();
    await closed.close();
    const deadTokenUrl = `${closed.url}/token`;
    const a = await replica(echoConfig(deadTokenUrl));
    const old = await authorizeAlice(a, Date.now() - 1000);
    const first = await getItem(a, 'i1');
    expect(first.ok ? undefined : first.error).toMatchObject({
      code: 'upstream_unavailable',
      retryable: true,
    });
    expect(await tokenStoreOf(a).get('echo-auth', 'alice')).toEqual(old);
    // The lock was released: the next call tries again at once rather than wait for its expiry.
    expect(await admin.keys('toolhost:refresh-lock:*')).toEqual([]);
    expect(errorCode(await getItem(a, 'i2'))).toBe('upstream_unavailable');
    expect(upstream.requests).toHaveLength(0);
  });
});

describe('shared store (Redis): deadlines on token requests', () => {
  const stallTokenEndpoint = () => {
    oauth.beforeAnswer = () => new Promise(() => {});
  };
  const quick = (): HostConfig => ({
    ...echoConfig(),
    auth: { ...echoConfig().auth, tokenRequestTimeoutSeconds: 1 },
  });

  for (const mode of ['before', 'after'] as const)
    it(`never cuts a stalled refresh short nor sends its refresh token twice (the vendor stalls ${mode} refreshing)`, async () => {
      // The vendor answers in 3 s; calls wait 1 s (their deadline), then are told to retry.
      let answer!: () => void;
      const stalled = new Promise<void>((r) => {
        answer = r;
      });
      if (mode === 'before') oauth.beforeAnswer = () => stalled;
      else oauth.afterRefreshing = () => stalled;
      const release = setTimeout(answer, 3000);
      try {
        const a = await replica(quick());
        const b = await replica(quick());
        const old = await authorizeAlice(a, Date.now() - 1000);
        const outcomes = await Promise.all(
          Array.from({ length: 10 }, (_, i) => getItem(i % 2 === 0 ? a : b, `i${i}`)),
        );
        // Each call either got the rotated token (the engine retries a call told to, with
        // backoff, and the vendor answered meanwhile) or was told to retry; none lost the grant.
        for (const o of outcomes)
          if (!o.ok) expect(o.error).toMatchObject({ code: 'upstream_unavailable', retryable: true });
        // Once the vendor answers, the rotated token serves every replica.
        await stalled;
        const deadline = Date.now() + 5000;
        let later = await getItem(b, 'later');
        while (errorCode(later) === 'upstream_unavailable' && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 200));
          later = await getItem(b, 'later');
        }
        expect(errorCode(later)).toBe(undefined);
        expect(errorCode(await getItem(a, 'later-a'))).toBe(undefined);
        expect(oauth.grants).toEqual([{ grant_type: 'refresh_token', refresh_token: old.refreshToken }]);
        const stored = await tokenStoreOf(a).get('echo-auth', 'alice');
        expect(new Set(upstream.requests.map((r) => r.headers.authorization))).toEqual(
          new Set([`Bearer ${stored?.accessToken}`]),
        );
      } finally {
        clearTimeout(release);
        answer();
      }
    }, 60_000);

  it('does not send again, from replica B, a refresh token whose request on A got no answer', async () => {
    // The vendor rotates the token, then the connection drops: A never learns the new one.
    oauth.afterRefreshing = async () => {
      throw new Error('connection dropped');
    };
    const a = await replica(quick());
    const b = await replica(quick());
    const old = await authorizeAlice(a, Date.now() - 1000);
    expect(errorCode(await getItem(a, 'i1'))).toBe('upstream_unavailable');
    // The mark travels with the sealed token: B reads it and asks for a sign-in instead.
    expect((await tokenStoreOf(b).get('echo-auth', 'alice'))?.refreshSentAt).toBeTypeOf('number');
    await new Promise((r) => setTimeout(r, 2100)); // past the lock's 'recently failed' mark
    const onB = await getItem(b, 'i2');
    expect(onB.ok ? undefined : onB.error).toMatchObject({ code: 'authorization_required' });
    expect(oauth.grants).toEqual([{ grant_type: 'refresh_token', refresh_token: old.refreshToken }]);
    expect(oauth.reuses).toEqual([]);
    expect(upstream.requests).toHaveLength(0);
  }, 60_000);

  it('keeps a rotated token the store refused, uses it, and writes it once Redis is back; no second refresh', async () => {
    const a = await replica();
    const b = await replica();
    const old = await authorizeAlice(a, Date.now() - 1000);
    oauth.beforeAnswer = async (grant) => {
      if (grant === 'refresh_token') await redis.stop({ save: true });
    };
    const first = await getItem(a, 'i1');
    expect(errorCode(first)).toBe(undefined);
    const rotated = String(upstream.requests[0]!.headers.authorization);
    expect(rotated).not.toBe(`Bearer ${old.accessToken}`);
    oauth.beforeAnswer = undefined;
    await redis.start();
    const deadline = Date.now() + 10_000;
    let stored = await tokenStoreOf(b)
      .get('echo-auth', 'alice')
      .catch(() => undefined);
    while (stored?.accessToken !== rotated.slice('Bearer '.length) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      stored = await tokenStoreOf(b)
        .get('echo-auth', 'alice')
        .catch(() => undefined);
    }
    expect(`Bearer ${stored?.accessToken}`).toBe(rotated);
    expect(errorCode(await getItem(b, 'i2'))).toBe(undefined);
    expect(oauth.grants).toHaveLength(1);
    expect(upstream.requests.map((r) => r.headers.authorization)).toEqual([rotated, rotated]);
  }, 60_000);

  it('answers Disconnect within the deadline when the revocation endpoint stalls, and forgets the token', async () => {
    stallTokenEndpoint();
    const config = quick();
    config.auth!.providers!['echo-auth']!.revokeUrl = oauth.revokeUrl;
    const a = await replica(config);
    await authorizeAlice(a);
    const started = Date.now();
    expect(await disconnect(a, 'alice', 'echo-auth')).toMatchObject({
      existed: true,
      revokedAtVendor: false,
    });
    // The token request deadline is 1 s and the endpoint never answers: 2 s more for a loaded
    // machine, far from the hang a missing deadline would be.
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await tokenStoreOf(a).get('echo-auth', 'alice')).toBeUndefined();
  });

  it('refuses a token request deadline as long as the refresh lock', async () => {
    await expect(
      replica({ ...echoConfig(), auth: { ...echoConfig().auth, tokenRequestTimeoutSeconds: 30 } }),
    ).rejects.toThrow(
      'auth.tokenRequestTimeoutSeconds (30) must be shorter than auth.refreshLockSeconds (30)',
    );
  });

  it('stops on SIGTERM while a token request stalls', async () => {
    stallTokenEndpoint();
    const child = await spawnHttpHost(
      {
        ...echoConfig(),
        auth: { ...echoConfig().auth, tokenRequestTimeoutSeconds: 60, refreshLockSeconds: 120 },
        shutdownGraceSeconds: 1,
      },
      replicaEnv({ TOOLHOST_ACCESS_TOKENS: `alice:${ALICE_ACCESS_TOKEN}` }) as Record<string, string>,
    );
    try {
      await storeAuthorized(
        oauth,
        await RedisTokenStore.open(admin, TokenCipher, TOKEN_KEY),
        'alice',
        Date.now() - 1000,
      );
      const client = new Client({ name: 'sigterm-test', version: '0.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(child.url), {
          requestInit: { headers: { authorization: `Bearer ${ALICE_ACCESS_TOKEN}` } },
        }),
      );
      const call = client
        .callTool({ name: 'EchoApi_GetItem', arguments: { item_id: 'i1' } })
        .catch(() => undefined);
      while (oauth.grants.length === 0) await new Promise((r) => setTimeout(r, 20));
      const stopping = Date.now();
      child.child.kill('SIGTERM');
      await child.exited;
      // shutdownGraceSeconds is 1, the stalled token request's deadline 60 s: 4 s more for a
      // loaded machine to exit, far from the minute a request holding the exit would take.
      expect(Date.now() - stopping).toBeLessThan(5000);
      await call;
    } finally {
      child.child.kill('SIGKILL');
    }
  }, 60_000);
});
