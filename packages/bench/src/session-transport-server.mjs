// A minimal Streamable HTTP server of the session era (2025-11-25 and earlier) that serves the
// host's own MCP server (createMcpServer over a host of the given config) through one of two
// session transports, so that the transports alone differ:
//   host      the host's SessionTransport (packages/host/src/http/session-transport.ts)
//   sdk-json  the v2 SDK's NodeStreamableHTTPServerTransport, answering POSTs with JSON
//   sdk-sse   the same, in its default mode (every POST answered with an event stream)
// Both get the POST body already parsed, as the host's endpoint gives it. No access tokens, no
// session caps, no replicas: what `serve --http` adds in front is the same for either.
// Usage: node session-transport-server.mjs <config file> <port> <host|sdk-json|sdk-sse>
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { createHost, createMcpServer, loadConfigFile, prepareMcpServingState } from '@toolhost/host';

// Not part of the host's API: the bench reaches the built modules, as store-cost.mjs does.
const { SessionTransport } = await import('../../host/dist/http/session-transport.js');
const { answersDirectly } = await import('../../host/dist/mcp/confirm-elicitation.js');

const [configFile = '', port = '0', kind = 'host'] = process.argv.slice(2);
if (!['host', 'sdk-json', 'sdk-sse'].includes(kind)) throw new Error(`unknown transport ${kind}`);

const host = await createHost(loadConfigFile(configFile).config);
const state = prepareMcpServingState(host);
/** @type {Map<string, { handleRequest(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, parsed?: unknown): Promise<void> }>} */
const sessions = new Map();

/** A new session's transport, connected to a new MCP server of the host (one per session, as the host does). */
async function openSession() {
  const server = createMcpServer(host, state, { userId: host.config.defaultUserId });
  if (kind === 'host') {
    const transport = new SessionTransport({
      sessionId: randomUUID(),
      maxConcurrentRequests: host.config.engine.maxConcurrentRequests,
      // As the host does: the session is kept once the server has accepted its initialize.
      onInitialized: async () => {
        sessions.set(transport.sessionId, transport);
        return undefined;
      },
      answersDirectly: (/** @type {{ method: string }} */ request) =>
        answersDirectly(server, host.config.tools?.confirmWrites, request),
    });
    transport.onclose = () => sessions.delete(transport.sessionId);
    await server.connect(transport);
    return transport;
  }
  const transport = new NodeStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: kind === 'sdk-json',
    onsessioninitialized: (id) => {
      sessions.set(id, transport);
    },
  });
  transport.onclose = () => {
    if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
  };
  await server.connect(transport);
  return transport;
}

createServer(async (req, res) => {
  let parsed;
  if (req.method === 'POST') {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    try {
      parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
  }
  const id = req.headers['mcp-session-id'];
  const transport =
    (typeof id === 'string' && sessions.get(id)) || (id === undefined ? await openSession() : undefined);
  if (!transport) {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }),
    );
    return;
  }
  await transport.handleRequest(req, res, parsed);
}).listen(Number(port), '127.0.0.1');
