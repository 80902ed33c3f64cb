import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { MAX_PENDING_PER_USER } from '@toolhost/credentials';
import { describe, expect, it, vi } from 'vitest';
import { Browser, startFlow } from './browser.js';
import {
  browserAuthorizationAcrossReplicas,
  elicitationCompletionAcrossReplicas,
} from './replica-scenarios.js';
import {
  admin,
  balancer,
  clients,
  connect,
  getItem,
  origin,
  startReplicas,
  startReplicasToKillA,
  suite,
  upstream,
  urlElicitationOf,
  useReplicaSuite,
} from './replicas-setup.js';
import type { HttpReplica } from './served-http-host.js';
import { ALICE_ACCESS_TOKEN as ALICE } from './support.js';

useReplicaSuite();

// Authorizations across replicas behind a balancer: flows, URL elicitations and their completion
// notices, wherever the callback lands. Sessions and confirmations are in replicas-sessions.

describe('replicas: authorization across replicas', () => {
  it('completes on replica B a flow that replica A handed out; both then use the token', async () => {
    await browserAuthorizationAcrossReplicas(suite());
  }, 60_000);

  it('tells a client waiting on replica A (URL elicitation) when the callback landed on replica B', async () => {
    await elicitationCompletionAcrossReplicas(suite());
  }, 60_000);

  it("delivers the completion notice through the replica holding the client's event stream", async () => {
    const [a, b] = await startReplicas();
    // The client's POSTs (initialize, the call) land on A, its GET event stream on B.
    balancer.pick = (req) => (req.method === 'GET' ? origin(b) : origin(a));
    const { client } = await connect(`${balancer.url}/mcp`, ALICE, { elicitation: { url: {} } });
    const completed = new Promise<string>((resolve) =>
      client.setNotificationHandler('notifications/elicitation/complete', (n) =>
        resolve(n.params.elicitationId),
      ),
    );
    await vi.waitFor(() =>
      expect(balancer.forwarded.some((f) => f.method === 'GET' && f.target === origin(b))).toBe(true),
    );
    const elicitation = await urlElicitationOf(client);
    expect(balancer.forwarded.filter((f) => f.method === 'POST').every((f) => f.target === origin(a))).toBe(
      true,
    );

    balancer.pick = () => origin(b);
    const browser = new Browser();
    expect((await browser.open(await startFlow(browser, elicitation.url, ALICE))).status).toBe(200);
    expect(await completed).toBe(elicitation.elicitationId);
  }, 60_000);

  // The replica that answered the call (and held the client's event stream) is killed before
  // the person completes the sign-in: the notice comes from B, once, whether the client's
  // stream is back (on B) when the flow completes or comes back only after.
  for (const streamBack of [true, false])
    it(`delivers the completion notice from B when A, which answered the call, is killed (stream back ${streamBack ? 'before' : 'after'} the flow completes)`, async () => {
      const [a, b] = await startReplicasToKillA();
      balancer.pick = () => origin(a);
      const client = new Client(
        { name: 'replica-test', version: '0.0.0' },
        { capabilities: { elicitation: { url: {} } } },
      );
      const transport = new StreamableHTTPClientTransport(new URL(`${balancer.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
        // A slow reconnection leaves the flow time to complete while no replica holds the stream.
        reconnectionOptions: {
          initialReconnectionDelay: streamBack ? 200 : 3000,
          maxReconnectionDelay: 5000,
          reconnectionDelayGrowFactor: 1.5,
          maxRetries: 5,
        },
      });
      await client.connect(transport);
      clients.push(client);
      const notices: string[] = [];
      client.setNotificationHandler('notifications/elicitation/complete', (n) => {
        notices.push(n.params.elicitationId);
      });
      const streamOn = (r: HttpReplica) =>
        balancer.forwarded.some(
          (f) => f.method === 'GET' && f.path === '/mcp' && f.target === origin(r) && f.status === 200,
        );
      await vi.waitFor(() => expect(streamOn(a)).toBe(true));
      const elicitation = await urlElicitationOf(client);

      a.child.kill('SIGKILL');
      await a.exited;
      balancer.pick = () => origin(b);
      if (streamBack) await vi.waitFor(() => expect(streamOn(b)).toBe(true), { timeout: 10_000 });
      const browser = new Browser();
      expect((await browser.open(await startFlow(browser, elicitation.url, ALICE))).status).toBe(200);
      expect(streamOn(b)).toBe(streamBack);
      await vi.waitFor(() => expect(notices).toEqual([elicitation.elicitationId]), { timeout: 15_000 });
      expect((await getItem(client)).isError).toBeFalsy();
      expect(notices).toHaveLength(1);
      expect(await admin.keys('toolhost:session:notices:*')).toEqual([]);
    }, 60_000);

  // Each call without a token starts a flow (a user keeps their newest 32) and records which
  // session waits for it: those records outlived the flows given up, one a call for 10 minutes.
  it('keeps a waiting session for the flows a user still has, however often they call without a token', async () => {
    await startReplicas();
    const { client } = await connect(`${balancer.url}/mcp`, ALICE, { elicitation: { url: {} } });
    const completed = new Promise<string>((resolve) =>
      client.setNotificationHandler('notifications/elicitation/complete', (n) =>
        resolve(n.params.elicitationId),
      ),
    );
    let last = { url: '', elicitationId: '' };
    for (let i = 0; i < 40; i += 1) last = await urlElicitationOf(client);
    expect((await admin.keys('toolhost:session:awaiting:*')).length).toBeLessThanOrEqual(
      MAX_PENDING_PER_USER,
    );
    // The newest flow is still waited for.
    const browser = new Browser();
    expect((await browser.open(await startFlow(browser, last.url, ALICE))).status).toBe(200);
    expect(await completed).toBe(last.elicitationId);
  }, 60_000);

  it('refuses, on B, a callback from a browser that A never bound to the flow', async () => {
    const [a, b] = await startReplicas();
    const first = await getItem((await connect(a.url)).client);
    const link = (first.structuredContent as { error: { authorization: { url: string } } }).error
      .authorization.url;
    balancer.pick = () => origin(b);
    const callback = await startFlow(new Browser(), link, ALICE);
    const stranger = await new Browser().open(callback);
    expect(stranger.status).toBe(403);
    expect(upstream.requests).toHaveLength(0);
  }, 60_000);
});
