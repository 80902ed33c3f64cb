import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { Browser, startFlow } from './browser.js';
import { echoAuthProviders, fakeClient } from './fake-oauth-server.js';
import { type RelayedConnection, redisRelay } from './redis-relay.js';
import { serveHttpHost } from './served-http-host.js';
import { oauth, redis, TOKEN_KEY, upstream, useStandaloneRedis } from './standalone-redis-setup.js';
import { ALICE_ACCESS_TOKEN } from './support.js';

// With replicas, a sign-in's completion notice waits in Redis until the replica holding the
// client's event stream takes it, and taken it is the only copy. The client's stream may close
// between the taking and the sending: the notice was then written nowhere, and the stream the
// client opened next found nothing, so the client never learnt that the sign-in completed.

useStandaloneRedis();

/** The command by which a replica takes a stored notice for the stream it holds. */
const CLAIM = /LREM[\s\S]*toolhost:session:notices:/i;

/**
 * A loopback link to Redis that, at the first command taking a stored notice, either holds it
 * and what follows on its connection until `release` (`hold`), or lets it run and loses its
 * answer, cutting every connection and taking none until `release` (`lose`: Redis gone as the
 * replica took it).
 */
async function claimLink(port: number, mode: 'hold' | 'lose') {
  let claiming: RelayedConnection | undefined;
  let released = false;
  let away = false;
  const held: Buffer[] = [];
  const seen = new Set<RelayedConnection>();
  const relay = await redisRelay(port, {
    accept: () => !away,
    fromClient: (data, connection) => {
      seen.add(connection);
      if (!claiming && !released && CLAIM.test(data.toString('latin1'))) claiming = connection;
      if (mode === 'hold' && connection === claiming && !released) held.push(data);
      else connection.upstream.write(data);
    },
    fromUpstream: (data, connection) => {
      if (mode !== 'lose' || connection !== claiming || released || away)
        return void connection.client.write(data);
      away = true;
      for (const c of seen) c.end();
    },
  });
  return {
    url: relay.url,
    claimed: () => claiming !== undefined,
    release() {
      released = true;
      away = false;
      for (const data of held.splice(0)) claiming?.upstream.write(data);
    },
    close: relay.close,
  };
}

const HEADERS = {
  authorization: `Bearer ${ALICE_ACCESS_TOKEN}`,
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
};

/** A raw MCP client of one session, whose event stream the test opens and closes itself. */
async function rawSession(url: string) {
  const init = await fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: { elicitation: { url: {} } },
        clientInfo: { name: 'stream-closed', version: '0.0.0' },
      },
    }),
  });
  expect(init.status).toBe(200);
  await init.text();
  const headers = {
    ...HEADERS,
    'mcp-session-id': init.headers.get('mcp-session-id')!,
    'mcp-protocol-version': '2025-11-25',
  };
  const post = (body: unknown) => fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
  return {
    async call(
      id: number,
      name: string,
      args: unknown,
    ): Promise<{ error?: { code: number; data?: unknown } }> {
      const res = await post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
      const text = await res.text();
      const json = text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)![1]!;
      return JSON.parse(json);
    },
    /** Opens the event stream: the messages it carried so far, and how to close it. */
    async stream() {
      const stop = new AbortController();
      const res = await fetch(url, {
        headers: { ...headers, accept: 'text/event-stream' },
        signal: stop.signal,
      });
      expect(res.status).toBe(200);
      const messages: { method?: string; params?: { elicitationId?: string } }[] = [];
      void (async () => {
        let buffer = '';
        const decoder = new TextDecoder();
        for await (const chunk of res.body!) {
          buffer += decoder.decode(chunk as Uint8Array, { stream: true });
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const data = /^data: (.*)$/m.exec(buffer.slice(0, end));
            if (data) messages.push(JSON.parse(data[1]!));
            buffer = buffer.slice(end + 2);
          }
        }
      })().catch(() => {});
      return { messages, close: () => stop.abort() };
    },
  };
}

/** A replica on `link` and a session whose call it answered with a sign-in to make; its event stream open. */
async function signInOffered(link: { url: string }) {
  const replica = await serveHttpHost(
    {
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl: upstream.url } },
      auth: { providers: echoAuthProviders(oauth) },
    },
    {
      ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret,
      TOOLHOST_TOKEN_KEY: TOKEN_KEY,
      TOOLHOST_ACCESS_TOKENS: `alice:${ALICE_ACCESS_TOKEN}`,
      TOOLHOST_REDIS_URL: link.url,
    },
  );
  const session = await rawSession(`${new URL(replica.url).origin}/mcp`);
  const first = await session.stream();
  const answer = await session.call(1, 'EchoApi_GetItem', { item_id: 'i1' });
  expect(answer.error?.code).toBe(-32042);
  const { url, elicitationId } = (
    answer.error!.data as { elicitations: { url: string; elicitationId: string }[] }
  ).elicitations[0]!;
  const signIn = async () => {
    const browser = new Browser();
    expect((await browser.open(await startFlow(browser, url, ALICE_ACCESS_TOKEN))).status).toBe(200);
  };
  return { replica, session, first, elicitationId, signIn };
}

const noticeOf = (elicitationId: string) =>
  expect.objectContaining({ method: 'notifications/elicitation/complete', params: { elicitationId } });

describe('a completion notice taken from Redis', () => {
  it('as the client closes its event stream is sent on the stream the client opens next', async () => {
    const link = await claimLink(redis.port, 'hold');
    let offered: Awaited<ReturnType<typeof signInOffered>> | undefined;
    try {
      offered = await signInOffered(link);
      const { session, first, elicitationId } = offered;
      await offered.signIn();
      // The replica is taking the notice for the open stream; the client closes it meanwhile.
      await vi.waitFor(() => expect(link.claimed()).toBe(true), { timeout: 10_000 });
      first.close();
      // Ample for this process's server to see the client leave (it runs in this process).
      await sleep(1000);
      link.release();
      // Time for the replica to take it: a stream opened sooner would be the one it went on.
      await sleep(500);
      expect(first.messages).toEqual([]);

      const next = await session.stream();
      try {
        await vi.waitFor(() => expect(next.messages).toContainEqual(noticeOf(elicitationId)), {
          timeout: 5000,
        });
      } finally {
        next.close();
      }
    } finally {
      await offered?.replica.close();
      link.close();
    }
  }, 30_000);

  it('whose answer Redis lost, going away, is sent all the same: the take may have run', async () => {
    const link = await claimLink(redis.port, 'lose');
    let offered: Awaited<ReturnType<typeof signInOffered>> | undefined;
    try {
      offered = await signInOffered(link);
      const { first, elicitationId } = offered;
      await offered.signIn();
      await vi.waitFor(() => expect(link.claimed()).toBe(true), { timeout: 10_000 });
      // Redis stays away: the notice it took is nowhere but here.
      await vi.waitFor(() => expect(first.messages).toContainEqual(noticeOf(elicitationId)), {
        timeout: 10_000,
      });
      first.close();
    } finally {
      link.release();
      await offered?.replica.close();
      link.close();
    }
  }, 30_000);
});
