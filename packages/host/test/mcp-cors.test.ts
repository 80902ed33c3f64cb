import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTokens } from '../src/auth/access-tokens.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { launchChromium } from './chromium.js';
import { ALICE_ACCESS_TOKEN, fixtureApp } from './support.js';

let host: Host;
let server: HttpServerHandle;
let pages: Server;
/** The page server's origin as listed in http.allowedOrigins, and the same server under a name not listed. */
let listed: string;
let unlisted: string;

beforeAll(async () => {
  pages = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>An application</title>');
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  const port = (pages.address() as AddressInfo).port;
  listed = `http://127.0.0.1:${port}`;
  unlisted = `http://localhost:${port}`;
  host = await createHost(
    { plugins: ['toolhost-plugin-echo'], http: { allowedOrigins: [listed] } },
    { configDir: fixtureApp },
  );
  server = await serveHttp(host, { port: 0, accessTokens: new AccessTokens({ alice: ALICE_ACCESS_TOKEN }) });
});
afterAll(async () => {
  await server?.close();
  await host?.close();
  pages?.closeAllConnections();
  await new Promise((resolve) => pages?.close(resolve));
});

describe('the MCP endpoint for pages of other origins', () => {
  it("answers a listed origin's preflight with the methods and the headers it asks for", async () => {
    const res = await fetch(server.url, {
      method: 'OPTIONS',
      headers: {
        origin: listed,
        'access-control-request-method': 'POST',
        'access-control-request-headers':
          'authorization, content-type, mcp-protocol-version, mcp-param-base-id',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(listed);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET,POST,DELETE');
    expect(res.headers.get('access-control-allow-headers')).toBe(
      'authorization, content-type, mcp-protocol-version, mcp-param-base-id',
    );
    expect(res.headers.get('access-control-max-age')).toBe('600');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('vary')).toContain('Origin');
  });

  it('refuses the preflight of an origin not listed, loopback or not, and answers without CORS headers', async () => {
    for (const origin of [unlisted, 'https://elsewhere.example']) {
      const res = await fetch(server.url, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      expect(res.status).toBe(403);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
        'http.allowedOrigins',
      );
    }
    const bare = await fetch(server.url, { method: 'OPTIONS' });
    expect(bare.status).toBe(405);
    expect(bare.headers.get('access-control-allow-origin')).toBeNull();
  });

  describe('in Chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });

    /** From a page at `origin`: a session opened, the tools listed, and an unsigned request's challenge. */
    async function fromPage(origin: string) {
      const page = await browser.newPage();
      try {
        await page.goto(`${origin}/`);
        return await page.evaluate(
          async ({ endpoint, token }) => {
            const headers = {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              authorization: `Bearer ${token}`,
            };
            const post = (body: unknown, more: Record<string, string> = {}) =>
              fetch(endpoint, {
                method: 'POST',
                headers: { ...headers, ...more },
                body: JSON.stringify(body),
              });
            try {
              const opened = await post({
                jsonrpc: '2.0',
                id: 1,
                method: 'initialize',
                params: {
                  protocolVersion: '2025-06-18',
                  capabilities: {},
                  clientInfo: { name: 'a page', version: '1' },
                },
              });
              const session = opened.headers.get('mcp-session-id') ?? '';
              const version = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
              await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, version);
              const listed = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, version);
              const unsigned = await fetch(endpoint, {
                method: 'POST',
                headers: { 'content-type': 'application/json', accept: headers.accept },
                body: '{}',
              });
              return {
                opened: opened.status,
                session,
                tools: await listed.text(),
                unsigned: unsigned.status,
                challenge: unsigned.headers.get('www-authenticate'),
              };
            } catch (e) {
              return { blocked: String(e) };
            }
          },
          { endpoint: server.url, token: ALICE_ACCESS_TOKEN },
        );
      } finally {
        await page.close();
      }
    }

    it('lets a page of a listed origin open a session, list the tools and read the sign-in challenge', async () => {
      const seen = await fromPage(listed);
      expect(seen).toMatchObject({ opened: 200, unsigned: 401 });
      expect((seen as { session: string }).session).toMatch(/^[\w-]{16,}$/);
      expect((seen as { tools: string }).tools).toContain('EchoApi');
      expect((seen as { challenge: string }).challenge).toMatch(/^Bearer\b/);
    });

    it('keeps the answers from a page of an origin not listed', async () => {
      const seen = await fromPage(unlisted);
      expect(seen).toMatchObject({ blocked: expect.stringContaining('Failed to fetch') });
    });
  });
});
