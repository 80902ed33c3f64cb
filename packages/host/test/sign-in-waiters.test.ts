import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { Server } from '../src/mcp/sdk.js';
import { echoOAuthConfig, fixtureApp } from './support.js';

let host: Host;
let server: HttpServerHandle;
beforeAll(async () => {
  host = await createHost(echoOAuthConfig, { configDir: fixtureApp, env: {} });
  server = await serveHttp(host, { port: 0 });
});
afterAll(async () => {
  await server?.close();
  await host?.close();
});

/** A session whose client opens sign-in URLs: a call that needs one leaves a waiter for its flow. */
async function callThenLeave(): Promise<void> {
  const client = new Client(
    { name: 'waiters', version: '0' },
    { capabilities: { elicitation: { url: {} } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  await client.connect(transport);
  await expect(client.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: 'i1' } })).rejects.toThrow(
    /-32042/,
  );
  await transport.terminateSession();
  await client.close();
}

describe('sign-in waiters of sessions that closed', () => {
  it('do not keep the sessions’ servers (a waiter lives 10 minutes, and there may be 10,000)', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const servers: WeakRef<Server>[] = [];
    const connect = Server.prototype.connect;
    Server.prototype.connect = function (this: Server, ...args) {
      servers.push(new WeakRef(this));
      return connect.apply(this, args);
    };
    try {
      for (let i = 0; i < 10; i += 1) await callThenLeave();
    } finally {
      Server.prototype.connect = connect;
    }
    // A target read in this turn is held to its end: collected from the next one on.
    await new Promise((resolve) => setTimeout(resolve, 50));
    gc();
    gc();
    expect(servers.length).toBeGreaterThanOrEqual(10);
    expect(servers.filter((s) => s.deref() !== undefined)).toHaveLength(0);
  });
});
