import type { Readable, Writable } from 'node:stream';
import type { Host } from '../host-api.js';
import type { Logger } from '../logger.js';
import { createMcpServer, type McpServerOptions } from '../mcp/create-mcp-server.js';
import { errorAnswer, maxUnanswered } from '../mcp/jsonrpc-messages.js';
import {
  eraPinnedBy,
  opensLegacyConnection,
  type PinnedEra,
  REVISION_SERVER_VERSIONS,
} from '../mcp/protocol-eras.js';
import { type JSONRPCMessage, type Server, serveStdio as serveBothEras } from '../mcp/sdk.js';
import { prepareMcpServingState } from '../mcp/serving-state.js';
import { RevisionRequests } from './revision-requests.js';
import { idOfOversized, LineLimit, MAX_STDIO_MESSAGE_BYTES } from './stdio-line-limit.js';
import { StdioWire } from './stdio-wire.js';

export interface StdioServeOptions extends McpServerOptions {
  logger?: Logger;
  /** Largest JSON-RPC message accepted (default 10 MiB); larger ones are answered with an error. */
  maxMessageBytes?: number;
}

/**
 * Serves the host over stdio (one client: the process that spawned us), in the era the client
 * opens with: `initialize` (MCP 2025-11-25 and earlier) or a 2026-07-28 request, `server/discover`
 * first.
 *
 * - A client opening with a session-era message gets one server connected to the pipe, which
 *   serves the whole connection: what the SDK's entry does for that era, without its entry in
 *   the way of each message.
 * - Any other opening goes to the SDK's entry, which decides the era (a probe, a fallback, the
 *   errors of a bad envelope) and serves it; once it has pinned 2026-07-28, the requests a
 *   client repeats go straight to a server of the connection bound to that revision
 *   (RevisionRequests).
 */
export async function serveStdio(
  host: Host,
  options: StdioServeOptions = {},
  stdin: Readable = process.stdin,
  stdout: Writable = process.stdout,
): Promise<{ close(): Promise<void> }> {
  const log = options.logger;
  const onerror = (e: Error) => log?.warn({ err: withoutMessage(e.message) }, 'stdio message refused');
  const mcpState = prepareMcpServingState(host);
  const newServer = (extra: McpServerOptions = {}): Server => {
    const server = createMcpServer(host, mcpState, { ...options, ...extra });
    server.onerror = onerror;
    return server;
  };
  const connection: Connection = {
    route: (first) => {
      if (opensLegacyConnection(first)) serveLegacy(connection, wire, newServer, onerror, first);
      else serveThroughEntry(connection, wire, newServer, onerror, first);
    },
    close: () => wire.close(),
  };
  const wire = openWire(stdin, stdout, options, (message) => connection.route(message), host);
  wire.onerror = onerror;
  return { close: () => wire.answered(2000).then(() => connection.close()) };
}

/** The JSON the SDK quotes after its reason (`Unknown message type: {…}`), the text V8's parse error quotes. */
const QUOTED_JSON = /: [[{"].*$|, (\.{3})?".*$/s;

/**
 * Why a message was refused, without the message: the SDK's errors quote it whole, a tool's
 * arguments or a person's answer to a form, up to the line limit (10 MiB) in one log line.
 */
function withoutMessage(reason: string): string {
  return reason.replace(QUOTED_JSON, ' (the message is not logged)').slice(0, 300);
}

/** Where the connection's messages go and how it closes, both set by the era its opening picks. */
interface Connection {
  route: (message: JSONRPCMessage) => void;
  close: () => Promise<void>;
}

/** The pipe: stdin split into lines within the size limit (an oversized one answered), stdout. */
function openWire(
  stdin: Readable,
  stdout: Writable,
  options: StdioServeOptions,
  route: (message: JSONRPCMessage) => void,
  host: Host,
): StdioWire {
  const limit = options.maxMessageBytes ?? MAX_STDIO_MESSAGE_BYTES;
  const lines = new LineLimit(limit, ({ head, tail, bytes }) => {
    const id = idOfOversized(head, tail);
    options.logger?.warn({ bytes, id }, 'message too large');
    const why = `Message larger than ${limit} bytes (${bytes}); it was discarded.`;
    void wire.write(errorAnswer(id, -32600, why));
  });
  const wire = new StdioWire(lines, stdout, route, maxUnanswered(host.config.engine.maxConcurrentRequests));
  stdin.pipe(lines);
  return wire;
}

/** The legacy era: one server on the pipe for the whole connection. */
function serveLegacy(
  connection: Connection,
  wire: StdioWire,
  newServer: () => Server,
  onerror: (e: Error) => void,
  first: JSONRPCMessage,
): void {
  const server = newServer();
  // The server reports the wire's errors itself (its own onerror): not told twice.
  wire.onerror = undefined;
  const waiting = [first];
  connection.route = (message) => waiting.push(message);
  server.connect(wire).then(() => {
    connection.route = (message) => wire.deliver(message);
    for (const message of waiting) wire.deliver(message);
  }, onerror);
  connection.close = async () => {
    await server.close().catch(() => {});
    await wire.close();
  };
}

/** Any other opening: the SDK's entry, with the repeated modern requests taken off it once it pins that era. */
function serveThroughEntry(
  connection: Connection,
  wire: StdioWire,
  newServer: (extra?: McpServerOptions) => Server,
  onerror: (e: Error) => void,
  first: JSONRPCMessage,
): void {
  let pinned: PinnedEra | undefined;
  let repeated: RevisionRequests | undefined;
  const served = serveBothEras(() => newServer(), { transport: wire, onerror });
  // stdin ended: the entry closes its server, aborting what it was answering; so is this one.
  const entryClosed = wire.onclose;
  wire.onclose = () => {
    void repeated?.close();
    entryClosed?.();
  };
  connection.route = (message) => {
    if (repeated?.take(message)) return;
    // Until the entry has pinned an era, each message is looked at for the one that pins it.
    if (pinned === undefined) {
      pinned = eraPinnedBy(message);
      if (pinned?.era === 'modern') {
        repeated = new RevisionRequests(
          newServer({ supportedProtocolVersions: REVISION_SERVER_VERSIONS }),
          pinned.revision,
          wire,
          onerror,
        );
      }
    }
    wire.deliver(message);
  };
  connection.close = async () => {
    await repeated?.close();
    await served.close();
  };
  connection.route(first);
}
