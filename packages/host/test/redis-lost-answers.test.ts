import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ToolOutcome } from '@toolhost/core';
import { MAX_PENDING_PER_USER, PENDING_TTL_MS, TokenCipher } from '@toolhost/credentials';
import { openSharedCipher, RedisPendingAuthorizations } from '@toolhost/redis-store';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisChannels } from '../../redis-store/src/redis-channels.js';
import { connectRedis } from '../../redis-store/src/redis-client.js';
import { RedisSessions } from '../../redis-store/src/redis-sessions.js';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import type { HostConfig } from '../src/config/host-config.js';
import type { Host } from '../src/host.js';
import { failoverHost } from './failover-scenario.js';
import { startFakeOAuthServer, storeAuthorized } from './fake-oauth-server.js';
import { type RelayedConnection, redisRelay } from './redis-relay.js';
import { closeClient, type RedisServer, redisClient, startRedisServer } from './redis-server.js';
import { postToSession } from './replica-scenarios.js';
import { serveHttpHost } from './served-http-host.js';
import { ALICE_ACCESS_TOKEN as ALICE, tokenStoreOf } from './support.js';
import { writeHost } from './write-support.js';

// A command whose answer is lost (the connection cut after Redis ran it) is sent again by the
// Redis client once it reconnects, or, Redis still away, failed. A claim (a preview's mark of
// its one send, an idempotency key's claim) that ran but whose caller never heard must be
// neither taken for someone else's (the write never sent, reported as sent already) nor left
// behind to refuse the retry.

let redis: RedisServer;
let admin: Redis;
let upstream: RecordingUpstream;
beforeAll(async () => {
  redis = await startRedisServer();
  admin = redisClient(redis.url);
  upstream = await startRecordingUpstream();
});
afterAll(async () => {
  await upstream.close();
  await closeClient(admin);
  await redis.close();
});

/**
 * A relay that, once armed with parts of a command, lets the next one with them reach Redis, then
 * loses Redis's answer and cuts that connection: the command ran, its client never heard. While
 * `away`, it takes no connection (Redis down, as the client sees it).
 */
async function answerLosingRelay(port: number) {
  let armed: string[] | undefined;
  let awayArmed: string[] | undefined;
  let awayAfter: RelayedConnection | undefined;
  let cut: RelayedConnection | undefined;
  const state = { away: false };
  const seen = new Set<RelayedConnection>();
  const relay = await redisRelay(port, {
    accept: () => !state.away,
    fromClient: (d, connection) => {
      seen.add(connection);
      if (armed?.every((part) => d.includes(part))) {
        armed = undefined;
        cut = connection;
      }
      if (awayArmed?.every((part) => d.includes(part))) {
        awayArmed = undefined;
        awayAfter = connection;
      }
      connection.upstream.write(d);
    },
    fromUpstream: (d, connection) => {
      if (connection === awayAfter) {
        awayAfter = undefined;
        connection.client.write(d);
        return goAway();
      }
      if (connection !== cut) return void connection.client.write(d);
      cut = undefined;
      connection.end();
    },
  });
  const loseAnswerTo = (...parts: string[]) => {
    armed = parts;
  };
  /** Cuts every connection, and takes no new one until `state.away` is false again. */
  const goAway = () => {
    state.away = true;
    for (const connection of seen) connection.end();
    seen.clear();
  };
  /** Lets the next command with these parts run and be answered, then goes away. */
  const goAwayAfter = (...parts: string[]) => {
    awayArmed = parts;
  };
  return { ...relay, state, loseAnswerTo, goAway, goAwayAfter };
}

type Relay = Awaited<ReturnType<typeof answerLosingRelay>>;

/** The host `open` makes on a new answer-losing relay, for `fn`; both closed after, whatever `fn` did. */
async function onRelay(
  open: (url: string) => Promise<Host>,
  fn: (host: Host, relay: Relay) => Promise<void>,
) {
  const relay = await answerLosingRelay(redis.port);
  try {
    const host = await open(relay.url);
    try {
      await fn(host, relay);
    } finally {
      await host.close();
    }
  } finally {
    relay.close();
  }
}

async function relayedHost(url: string, config: HostConfig = {}): Promise<Host> {
  return writeHost(upstream.url, config, {
    TOOLHOST_REDIS_URL: url,
    TOOLHOST_TOKEN_KEY: 'token-encryption-key-for-lost-answers',
  });
}

async function previewId(host: Host): Promise<string> {
  const made = await host.previewToolCall('WriteApi.UpdateThing', { id: 'thing-1', title: 'New' });
  return (made as { preview: { preview_id: string } }).preview.preview_id;
}

const codeOf = (o: unknown) => {
  const outcome = o as ToolOutcome;
  return outcome.ok ? 'ok' : outcome.error.code;
};

/** What the first apply answers once the host reaches Redis again (until then, store_unavailable). */
async function appliedOnceBack(host: Host, id: string): Promise<string> {
  for (const until = Date.now() + 10_000; ; ) {
    const code = codeOf(await host.applyPreview(id));
    if (code !== 'store_unavailable' || Date.now() > until) return code;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a claim whose answer Redis lost', () => {
  it('applies a preview once when the client sends the claim again: not refused as applied', {
    timeout: 30_000,
  }, async () => {
    await onRelay(relayedHost, async (host, relay) => {
      const sentBefore = upstream.requests.length;
      const id = await previewId(host);
      relay.loseAnswerTo('preview-sent');
      expect(codeOf(await host.applyPreview(id))).toBe('ok');
      expect(upstream.requests.length - sentBefore).toBe(1);
      // Its mark holds: applied again, nothing is sent.
      expect(codeOf(await host.applyPreview(id))).toBe('preview_used');
      expect(upstream.requests.length - sentBefore).toBe(1);
    });
  });

  it('sends a keyed write once when the client sends its claim again: not waiting on its own claim', {
    timeout: 30_000,
  }, async () => {
    // A claim outlives its holder 30 s; a call waits 2 s on another's before answering
    // idempotency_in_progress.
    const tools = { idempotencyClaimSeconds: 30, idempotencyWaitSeconds: 2 };
    await onRelay(
      (url) => relayedHost(url, { tools }),
      async (host, relay) => {
        const sentBefore = upstream.requests.length;
        const write = () =>
          host.callTool(
            'WriteApi.UpdateThing',
            { id: 'thing-2', title: 'Keyed' },
            { idempotencyKey: 'key-1' },
          );
        // Its claim, not the looks at the key before it (GETs): the claim sets with an expiry.
        relay.loseAnswerTo('idempotency-claim', 'PX');
        expect(codeOf(await write())).toBe('ok');
        expect(codeOf(await write())).toBe('ok');
        expect(upstream.requests.length - sentBefore).toBe(1);
      },
    );
  });

  it('gives a preview its claim back once Redis answers again, so the retry sends it once', {
    timeout: 30_000,
  }, async () => {
    await onRelay(relayedHost, async (host, relay) => {
      const sentBefore = upstream.requests.length;
      const id = await previewId(host);
      relay.loseAnswerTo('preview-sent');
      // The claim ran; its connection is cut and no new one is taken: the client gives it up.
      relay.state.away = true;
      expect(codeOf(await host.applyPreview(id))).toBe('store_unavailable');
      expect(await admin.exists(`toolhost:writes:preview-sent:${id}`)).toBe(1);
      relay.state.away = false;
      expect(upstream.requests.length - sentBefore).toBe(0);
      // Retried as soon as Redis answers: given back before, not refused as applied.
      expect(await appliedOnceBack(host, id)).toBe('ok');
      expect(await admin.exists(`toolhost:writes:preview-sent:${id}`)).toBe(1);
      expect(upstream.requests.length - sentBefore).toBe(1);
    });
  });

  it('gives a preview back when nothing was sent, with Redis away after its claim', {
    timeout: 30_000,
  }, async () => {
    // No secret: the apply claims the preview, then sends nothing and gives it back.
    const noSecret = (url: string) =>
      writeHost(
        upstream.url,
        {},
        {
          TOOLHOST_REDIS_URL: url,
          TOOLHOST_TOKEN_KEY: 'token-encryption-key-for-lost-answers',
          WRITE_KEY: '',
        },
      );
    await onRelay(noSecret, async (host, relay) => {
      const id = await previewId(host);
      // Away once the claim is taken and counted (its bytes charged): the apply's letting go fails.
      relay.goAwayAfter('preview-sent', 'ZRANGEBYSCORE');
      expect(codeOf(await host.applyPreview(id))).toBe('missing_secret');
      relay.state.away = false;
      // Applied again once Redis answers: nothing was sent, so it is not refused as applied.
      expect(await appliedOnceBack(host, id)).toBe('missing_secret');
    });
  });

  it('refreshes a token once, under the lock its client took twice: not waiting on its own lock', {
    timeout: 30_000,
  }, async () => {
    const oauth = await startFakeOAuthServer();
    try {
      await onRelay(
        (url) => failoverHost({ redisUrl: url }, upstream, oauth),
        async (host, relay) => {
          const stale = await storeAuthorized(oauth, tokenStoreOf(host), 'alice', Date.now() - 1000);
          relay.loseAnswerTo('refresh-lock');
          const called = await host.callTool('EchoApi.GetItem', { item_id: 'i1' }, { userId: 'alice' });
          expect(codeOf(called), JSON.stringify(called)).toBe('ok');
          expect(oauth.grants).toEqual([{ grant_type: 'refresh_token', refresh_token: stale.refreshToken }]);
        },
      );
    } finally {
      await oauth.close();
    }
  });

  it('takes a pending sign-in once when the client sends the take again: the callback finds it', async () => {
    const relay = await answerLosingRelay(redis.port);
    // The host's own client, as it connects: a lost answer is sent again on reconnecting.
    const client = await connectRedis(relay.url);
    try {
      const cipher = await openSharedCipher(client, TokenCipher, 'token-encryption-key-for-lost-answers');
      const bounds = { ttlMs: PENDING_TTL_MS, maxPerUser: MAX_PENDING_PER_USER };
      const pending = new RedisPendingAuthorizations(client, cipher, 'echo-auth', bounds);
      const flow = { userId: 'alice', flowId: 'flow-1', scopes: [], authorizeUrl: 'https://as.example/a' };
      await pending.add('state-1', { ...flow, codeVerifier: 'verifier-1' });
      relay.loseAnswerTo(':state:state-1');
      expect((await pending.take('state-1'))?.codeVerifier).toBe('verifier-1');
      // Once: taken again, on this replica or another, it is gone, and nothing is left behind.
      expect(await pending.take('state-1')).toBeUndefined();
      expect(await pending.get('state-1')).toBeUndefined();
      expect(await admin.keys('toolhost:oauth:*')).toEqual([]);
    } finally {
      client.disconnect();
      relay.close();
    }
  });

  it('ends everywhere a session its client ended while Redis was away, once Redis is back', {
    timeout: 30_000,
  }, async () => {
    const relay = await answerLosingRelay(redis.port);
    const config = { plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } };
    const env = (url: string) => ({
      TOOLHOST_REDIS_URL: url,
      TOOLHOST_TOKEN_KEY: 'token-encryption-key-for-lost-answers',
      TOOLHOST_ACCESS_TOKENS: `alice:${ALICE}`,
    });
    // A reaches Redis through the relay, B directly.
    const a = await serveHttpHost(config, env(relay.url));
    const b = await serveHttpHost(config, env(redis.url));
    const client = new Client({ name: 'lost-answers', version: '0.0.0' });
    try {
      const transport = new StreamableHTTPClientTransport(new URL(a.url), {
        requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
      });
      await client.connect(transport);
      const session = transport.sessionId!;
      const ping = async () =>
        (await postToSession(b.url, ALICE, session, { jsonrpc: '2.0', id: 1, method: 'ping' })).status;
      expect(await ping()).toBe(200);
      relay.goAway();
      await transport.terminateSession().catch(() => {});
      relay.state.away = false;
      // The end reaches Redis, and B, once A hears Redis again: not served until idle.
      await expect.poll(ping, { timeout: 15_000, interval: 200 }).toBe(404);
    } finally {
      await client.close().catch(() => {});
      await Promise.all([a.close(), b.close()]);
      relay.close();
    }
  });

  it("hands a session's completion notices to the take whose answer was lost, once", async () => {
    const relay = await answerLosingRelay(redis.port);
    const client = await connectRedis(relay.url);
    const channels = await RedisChannels.open(client);
    try {
      const sessions = new RedisSessions(client, channels, 60_000);
      await sessions.putBackNotices('s1', ['flow-1']);
      relay.loseAnswerTo(':notices:s1');
      // The replica holding the stream takes the notice told to it.
      expect(await sessions.claimNotice('s1', 'flow-1')).toBe(true);
      expect(await sessions.claimNotice('s1', 'flow-1')).toBe(false);
      // A stream opened takes every notice stored for it.
      await sessions.putBackNotices('s1', ['flow-3']);
      await sessions.putBackNotices('s1', ['flow-2']);
      relay.loseAnswerTo(':notices:s1');
      expect(await sessions.takeNotices('s1')).toEqual(['flow-2', 'flow-3']);
      expect(await sessions.takeNotices('s1')).toEqual([]);
      expect(await admin.exists('toolhost:session:notices:s1')).toBe(0);
    } finally {
      await channels.close();
      client.disconnect();
      relay.close();
    }
  });
});
