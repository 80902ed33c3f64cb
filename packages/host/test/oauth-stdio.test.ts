import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostCliPath, type SpawnedHost, spawnHost } from '../../testing/src/spawn-host.js';
import { Browser } from './browser.js';
import {
  echoAuthProviders,
  type FakeOAuthServer,
  fakeClient,
  startFakeOAuthServer,
} from './fake-oauth-server.js';
import { fixtureApp } from './support.js';

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
    const dir = mkdtempSync(join(tmpdir(), 'toolhost-oauth-stdio-'));
    const file = join(dir, 'toolhost.config.json');
    writeFileSync(
      file,
      JSON.stringify({
        plugins: ['toolhost-plugin-echo'],
        http: { port: 0 },
        auth: { providers: echoAuthProviders(oauth) },
      }),
    );
    const child = spawn(process.execPath, [hostCliPath(), '--config', file, 'serve', '--stdio'], {
      cwd: fixtureApp,
      env: { PATH: process.env.PATH, ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret },
    });
    let logs = '';
    child.stderr.on('data', (c: Buffer) => {
      logs += c.toString();
    });
    const exited = once(child, 'exit');
    child.stdout.resume();
    const initialize = {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'x', version: '0' },
    };
    child.stdin.end(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initialize })}\n`,
    );
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const [code, signal] = await exited;
    clearTimeout(timer);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(logs).toContain('serving OAuth pages');
    expect(logs).toContain('"signal":"stdin closed"');
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
