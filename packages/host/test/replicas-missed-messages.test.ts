import type { Socket } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it, vi } from 'vitest';
import type { HostConfig } from '../src/config/host-config.js';
import { type Balancer, startBalancer } from './balancer.js';
import { Browser, startFlow } from './browser.js';
import { echoAuthProviders, fakeClient } from './fake-oauth-server.js';
import { redisRelay } from './redis-relay.js';
import { closeClient, redisClient } from './redis-server.js';
import { postToSession, storeAliceToken } from './replica-scenarios.js';
import { urlElicitationOf } from './replicas-setup.js';
import { type HttpReplica, type ServedHttpHost, serveHttpHost } from './served-http-host.js';
import {
  admin,
  oauth,
  redis,
  suite,
  TOKEN_KEY,
  upstream,
  useStandaloneRedis,
} from './standalone-redis-setup.js';
import { ALICE_ACCESS_TOKEN } from './support.js';

// What one replica tells another through Redis pub/sub while the receiver's subscription is
// down (its subscriber reconnecting after Redis restarted): a person's answer to a confirmation
// another replica asked for, a sign-in's completion notice for a client whose event stream is on
// another replica, a session's end. Missed, the confirmed call waited out its question's 10
// minutes though the client was told its answer was taken, the notice waited for the client to
// reopen its stream, which an open stream never does, and the ended session was served on until
// idle.

useStandaloneRedis();

const ANSWERS = 'toolhost:session:client-answers';
const COMPLETIONS = 'toolhost:session:elicitation-complete';
const CLOSED = 'toolhost:session:closed';

/**
 * A loopback link to Redis for one replica that can keep its subscriber away: `cutSubscribers`
 * closes the connections that subscribed, and any connection that subscribes until `restore`.
 */
type SubscriberLink = Awaited<ReturnType<typeof subscriberLink>>;

async function subscriberLink(port: number) {
  let away = false;
  const subscribers = new Set<Socket>();
  const relay = await redisRelay(port, {
    fromClient: (d, { client, upstream, end }) => {
      if (/\r\nSUBSCRIBE\r\n/i.test(d.toString('latin1'))) {
        if (away) return end();
        subscribers.add(client);
      }
      upstream.write(d);
    },
  });
  return {
    url: relay.url,
    cutSubscribers() {
      away = true;
      for (const s of subscribers) s.destroy();
      subscribers.clear();
    },
    restore() {
      away = false;
    },
    close: relay.close,
  };
}

const subscribed = async (channel = ANSWERS) =>
  ((await admin.call('PUBSUB', 'NUMSUB', channel)) as [string, number])[1];

const origin = (r: HttpReplica) => new URL(r.url).origin;

/**
 * Two replicas behind the balancer for `fn`, replica A reaching Redis through `link` (whose
 * subscribers the test keeps away) and B directly; all stopped after, whatever `fn` did.
 */
async function withReplicas(
  extra: Partial<HostConfig>,
  fn: (fleet: { link: SubscriberLink; balancer: Balancer; a: string; b: string }) => Promise<void>,
): Promise<void> {
  const link = await subscriberLink(redis.port);
  const balancer = await startBalancer();
  const replicas: ServedHttpHost[] = [];
  try {
    const config: HostConfig = {
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl: upstream.url } },
      http: { publicUrl: balancer.url },
      auth: { providers: echoAuthProviders(oauth) },
      ...extra,
    };
    const env = {
      ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret,
      ECHO_KEY: 'echo-static-key-for-replicas',
      TOOLHOST_TOKEN_KEY: TOKEN_KEY,
      TOOLHOST_ACCESS_TOKENS: `alice:${ALICE_ACCESS_TOKEN}`,
    };
    const a = await serveHttpHost(config, { ...env, TOOLHOST_REDIS_URL: link.url });
    replicas.push(a);
    const b = await serveHttpHost(config, { ...env, TOOLHOST_REDIS_URL: redis.url });
    replicas.push(b);
    balancer.targets = [origin(a), origin(b)];
    await fn({ link, balancer, a: origin(a), b: origin(b) });
  } finally {
    await Promise.all(replicas.map((r) => r.close()));
    await balancer.close();
    link.close();
  }
}

describe('a message relayed while the receiving replica is not subscribed', () => {
  it('hands a confirmation answered on another replica to the asking one once subscribed again, sent once', async () => {
    await storeAliceToken(suite(), 'items.write');
    const listener = redisClient(redis.url);
    try {
      await withReplicas({ tools: { confirmWrites: true } }, async ({ link, balancer, a, b }) => {
        let answered = false;
        balancer.pick = (req) => (answered && req.method === 'POST' ? b : a);
        // The relayed answer, heard by the test as B publishes it.
        const relayed = new Promise<void>((resolve) => listener.on('message', () => resolve()));
        await listener.subscribe(ANSWERS);
        const subscribers = await subscribed();

        const client = new Client(
          { name: 'relayed-answers', version: '0.0.0' },
          { capabilities: { elicitation: { form: {} } } },
        );
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${balancer.url}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${ALICE_ACCESS_TOKEN}` } },
          }),
        );
        client.setRequestHandler('elicitation/create', async () => {
          link.cutSubscribers();
          await vi.waitFor(async () => expect(await subscribed()).toBe(subscribers - 1), { timeout: 10_000 });
          answered = true;
          return { action: 'accept', content: { send: true } };
        });
        const call = client.callTool({ name: 'EchoApi_DeleteItem', arguments: { item_id: 'i9' } });
        await relayed;
        link.restore();
        await vi.waitFor(async () => expect(await subscribed()).toBe(subscribers), { timeout: 20_000 });
        const result = await Promise.race([
          call,
          new Promise((_, reject) =>
            setTimeout(() => reject(new Error('the call still waits for its answer')), 30_000),
          ),
        ]);
        expect((result as { isError?: boolean }).isError, JSON.stringify(result)).toBeFalsy();
        expect(upstream.requests).toHaveLength(1);
        await client.close().catch(() => {});
      });
    } finally {
      await closeClient(listener);
    }
  }, 60_000);

  it('delivers a completion notice on the stream of the replica that missed it, once subscribed again', async () => {
    await withReplicas({}, async ({ link, balancer, a, b }) => {
      balancer.pick = () => a;
      const client = new Client(
        { name: 'missed-notice', version: '0.0.0' },
        { capabilities: { elicitation: { url: {} } } },
      );
      const completed = new Promise<string>((resolve) =>
        client.setNotificationHandler('notifications/elicitation/complete', (n) =>
          resolve(n.params.elicitationId),
        ),
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${balancer.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${ALICE_ACCESS_TOKEN}` } },
        }),
      );
      // The client's event stream is open on A.
      await vi.waitFor(() =>
        expect(balancer.forwarded.some((f) => f.method === 'GET' && f.target === a)).toBe(true),
      );
      const elicitation = await urlElicitationOf(client);
      const subscribers = await subscribed(COMPLETIONS);
      link.cutSubscribers();
      await vi.waitFor(async () => expect(await subscribed(COMPLETIONS)).toBe(subscribers - 1), {
        timeout: 10_000,
      });

      balancer.pick = (req) => (req.method === 'GET' && req.url?.startsWith('/mcp') ? a : b);
      const browser = new Browser();
      const done = await browser.open(await startFlow(browser, elicitation.url, ALICE_ACCESS_TOKEN));
      expect(done.status).toBe(200);
      link.restore();
      await vi.waitFor(async () => expect(await subscribed(COMPLETIONS)).toBe(subscribers), {
        timeout: 20_000,
      });
      const notified = await Promise.race([
        completed,
        new Promise((_, reject) => setTimeout(() => reject(new Error('no completion notice')), 30_000)),
      ]);
      expect(notified).toBe(elicitation.elicitationId);
      await client.close().catch(() => {});
    });
  }, 60_000);

  it('ends a session ended on another replica once subscribed again', async () => {
    await withReplicas({}, async ({ link, balancer, a, b }) => {
      balancer.pick = () => a;
      const client = new Client({ name: 'missed-end', version: '0.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(`${balancer.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${ALICE_ACCESS_TOKEN}` } },
      });
      await client.connect(transport);
      const session = transport.sessionId!;
      const ping = () =>
        postToSession(`${a}/mcp`, ALICE_ACCESS_TOKEN, session, { jsonrpc: '2.0', id: 1, method: 'ping' });
      const subscribers = await subscribed(CLOSED);
      link.cutSubscribers();
      await vi.waitFor(async () => expect(await subscribed(CLOSED)).toBe(subscribers - 1), {
        timeout: 10_000,
      });

      balancer.pick = () => b;
      await transport.terminateSession();
      expect(balancer.forwarded.at(-1)).toMatchObject({ method: 'DELETE', target: b, status: 200 });
      // A never heard of the end.
      expect((await ping()).status).toBe(200);
      link.restore();
      await vi.waitFor(async () => expect(await subscribed(CLOSED)).toBe(subscribers), { timeout: 20_000 });
      await vi.waitFor(async () => expect((await ping()).status).toBe(404), { timeout: 5000, interval: 50 });
      await client.close().catch(() => {});
    });
  }, 60_000);
});
