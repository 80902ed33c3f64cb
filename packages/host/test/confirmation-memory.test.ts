import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import type { Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { Server } from '../src/mcp/sdk.js';
import { writeHost } from './write-support.js';

// A person confirming writes on a session (tools.confirmWrites, form elicitation): the SDK's
// server checks each accepted answer against the form's schema with its Ajv, which compiles and
// keeps every schema object it is given, for the server's life. A form built afresh for each
// question left one compiled schema behind per confirmation (a few KB each), for as long as
// the session, or a stdio connection, lasted.

let upstream: RecordingUpstream;
let host: Host;
let server: HttpServerHandle;
const servers: Server[] = [];
const connect = Server.prototype.connect;

beforeAll(async () => {
  Server.prototype.connect = function (this: Server, transport) {
    servers.push(this);
    return connect.call(this, transport);
  };
  upstream = await startRecordingUpstream();
  host = await writeHost(upstream.url, { tools: { confirmWrites: true } });
  server = await serveHttp(host, { port: 0 });
});
afterAll(async () => {
  Server.prototype.connect = connect;
  await server.close();
  await host.close();
  await upstream.close();
});

/** The schemas the server's validator (the SDK's Ajv) holds compiled. */
function compiledSchemas(session: Server): number {
  const validator = (
    session as unknown as { _jsonSchemaValidator: { _ajv: { _cache: Map<unknown, unknown> } } }
  )._jsonSchemaValidator;
  return validator._ajv._cache.size;
}

describe('confirmations on one session', () => {
  it('leave nothing compiled behind per question', { timeout: 60_000 }, async () => {
    const client = new Client(
      { name: 'person', version: '0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { send: true },
    }));
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const write = async (i: number) => {
      const result = await client.callTool({
        name: 'WriteApi_UpdateThing',
        arguments: { id: `thing-${i}`, notify: false, title: 'Renamed' },
      });
      expect(result.isError).toBeFalsy();
    };
    await write(0);
    const session = servers.at(-1)!;
    const after = compiledSchemas(session);
    for (let i = 1; i <= 30; i += 1) await write(i);
    expect(upstream.requests).toHaveLength(31);
    expect(compiledSchemas(session)).toBe(after);
    await client.close();
  });
});
