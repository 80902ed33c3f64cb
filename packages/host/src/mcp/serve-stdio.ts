import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Host } from '../host.js';
import { createMcpServer, type McpServerOptions, prepareMcpCatalog } from './create-mcp-server.js';

/** Serves the host over stdio (one client: the process that spawned us). */
export async function serveStdio(
  host: Host,
  options: McpServerOptions = {},
): Promise<{ close(): Promise<void> }> {
  const server = createMcpServer(host, prepareMcpCatalog(host), options);
  const transport = new StdioServerTransport();
  await server.connect(transport);
  return { close: () => server.close() };
}
