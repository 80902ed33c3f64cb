import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** A response that goes nowhere: the replayed exchanges' answers were the original replica's to send. */
class DiscardedResponse extends ServerResponse {
  readonly done: Promise<number>;
  private finish!: (status: number) => void;

  constructor(req: IncomingMessage) {
    super(req);
    this.done = new Promise((resolve) => {
      this.finish = resolve;
    });
  }

  override write(): boolean {
    return true;
  }

  override end(): this {
    this.finish(this.statusCode);
    return this;
  }
}

/** One POST of `body` through the transport, as if a client had sent it; resolves with the status. */
async function post(
  transport: StreamableHTTPServerTransport,
  headers: Record<string, string>,
  body: unknown,
): Promise<number> {
  const req = new IncomingMessage(new Socket());
  req.method = 'POST';
  req.url = '/mcp';
  const all = {
    ...headers,
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
  };
  req.headers = all;
  req.rawHeaders = Object.entries(all).flat();
  req.push(null);
  const res = new DiscardedResponse(req);
  await transport.handleRequest(req, res, body);
  return res.done;
}

/**
 * Rebuilds on this replica a session another replica opened: the client's stored initialize
 * request and its `initialized` notification go through a fresh transport (whose session id
 * generator gives the stored id) exactly as they once came over the network, so the SDK's
 * server learns the client's capabilities and version through its public path. The SDK has
 * no public way to create an initialized transport; replaying the handshake is the way that
 * needs none of its private fields. True when the session is ready for the client's request.
 */
export async function replayInitialize(
  transport: StreamableHTTPServerTransport,
  initialize: unknown,
  protocolVersion: string,
  host: string,
): Promise<boolean> {
  if ((await post(transport, { host }, initialize)) !== 200) return false;
  const sessionId = transport.sessionId ?? '';
  const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
  const status = await post(
    transport,
    { host, 'mcp-session-id': sessionId, 'mcp-protocol-version': protocolVersion },
    initialized,
  );
  return status === 202;
}
