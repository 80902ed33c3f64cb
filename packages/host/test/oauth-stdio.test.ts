import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpawnedHost, spawnHost } from '../../testing/src/spawn-host.js';
import { Browser } from './browser.js';
import {
  echoAuthProviders,
  type FakeOAuthServer,
  fakeClient,
  startFakeOAuthServer,
} from './fake-oauth-server.js';
import { cli, fixtureApp } from './support.js';

let oauth: FakeOAuthServer;
const busy = createServer();
let busyPort: number;
beforeAll(async () => {
  oauth = await startFakeOAuthServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
  busyPort = (busy.address() as AddressInfo).port;
});
afterAll(async () => {
  await oauth.close();
  await new Promise((r) => busy.close(r));
});

const errorOf = (r: unknown) =>
  (r as { structuredContent: { error: { code: string; authorization?: { url: string } } } }).structuredContent
    .error;

describe('stdio hosts with OAuth', () => {
  it('exit once their client closes stdin, the OAuth pages with them', async () => {
    // The pages' server held the process: every Inspector run left a host behind, orphaned.
    const run = await cli(['--plugins', '@toolhost/plugin-crm-events', 'serve', '--stdio'], {
      CRM_AUTH_PROVIDER_CLIENT_ID: 'client-id',
      CRM_AUTH_PROVIDER_CLIENT_SECRET: 'client-secret-0123',
      TOOLHOST_PORT: '0',
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('serving OAuth pages');
    expect(run.stderr).toContain('"signal":"stdin closed"');
  });

  it('start when the callback port is taken (a second agent on the machine), on a free port', async () => {
    const config = {
      plugins: ['toolhost-plugin-echo'],
      http: { port: busyPort },
      auth: {
        providers: echoAuthProviders(oauth),
      },
    };
    const env = { ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret };
    const hosts: SpawnedHost[] = [];
    try {
      // Two hosts, as two agents would start them, both wanting the taken port.
      for (let i = 0; i < 2; i += 1) hosts.push(await spawnHost(config, { env, cwd: fixtureApp }));
      for (const h of hosts) {
        const outcome = await h.client.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: 'x' } });
        const link = new URL(errorOf(outcome).authorization!.url);
        expect(link.port).not.toBe(String(busyPort));
        expect(h.stderr()).toMatch(/in use/);
        expect(h.stderr()).toContain(`http://127.0.0.1:${link.port}/oauth/callback/echo-auth`);
        // The link works: it sends the browser on to the authorization server.
        const page = await new Browser().open(link, {}, (next) => next.origin === oauth.url);
        expect(page.url.origin).toBe(oauth.url);
      }
      expect(new Set(hosts.map((h) => h.stderr().match(/127\.0\.0\.1:(\d+)\/oauth/)?.[1])).size).toBe(2);
    } finally {
      await Promise.all(hosts.map((h) => h.close()));
    }
  });
});
