import type { Readable, Writable } from 'node:stream';
import type { Host } from '../host-api.js';
import type { Logger } from '../logger.js';
import { createMcpServer, type McpServerOptions, prepareMcpServingState } from '../mcp/create-mcp-server.js';
import { serveStdio as serveBothEras } from '../mcp/sdk.js';
import { BatchedStdioServerTransport } from './batched-stdio-transport.js';
import { idOfOversized, LineLimit, MAX_STDIO_MESSAGE_BYTES } from './stdio-line-limit.js';

export interface StdioServeOptions extends McpServerOptions {
  logger?: Logger;
  /** Largest JSON-RPC message accepted (default 10 MiB); larger ones are answered with an error. */
  maxMessageBytes?: number;
}

/**
 * Serves the host over stdio (one client: the process that spawned us), in the era the client
 * opens with: `initialize` (MCP 2025-11-25 and earlier) or a 2026-07-28 request, `server/discover`
 * first. The SDK's entry decides the era and pins one server for the connection.
 */
export async function serveStdio(
  host: Host,
  options: StdioServeOptions = {},
  stdin: Readable = process.stdin,
  stdout: Writable = process.stdout,
): Promise<{ close(): Promise<void> }> {
  const log = options.logger;
  const limit = options.maxMessageBytes ?? MAX_STDIO_MESSAGE_BYTES;
  const lines = new LineLimit(limit, ({ head, tail, bytes }) => {
    const id = idOfOversized(head, tail);
    log?.warn({ bytes, id }, 'message too large');
    stdout.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id,
        error: { code: -32600, message: `Message larger than ${limit} bytes (${bytes}); it was discarded.` },
      })}\n`,
    );
  });
  stdin.pipe(lines);
  const mcpState = prepareMcpServingState(host);
  // Lines reach the SDK's reader whole and within the limit, so its own (smaller) guard,
  // which would close the transport, never trips.
  const transport = new BatchedStdioServerTransport(lines, stdout, { maxBufferSize: limit + 1 });
  const served = serveBothEras(
    () => {
      const server = createMcpServer(host, mcpState, options);
      server.onerror = (e) => log?.warn({ err: e.message }, 'stdio message refused');
      return server;
    },
    { transport, onerror: (e) => log?.warn({ err: e.message }, 'stdio message refused') },
  );
  return { close: () => served.close() };
}
