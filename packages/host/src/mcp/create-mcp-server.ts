import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Host } from '../host.js';
import { SERVER_INSTRUCTIONS } from './instructions.js';
import { renderOutcome } from './render-outcome.js';
import { ToolNameMap } from './tool-names.js';

export interface McpServerOptions {
  name?: string;
  version?: string;
  /** The user calls on this server are made for (per HTTP session). */
  userId?: string;
}

/**
 * Prepares what every MCP server of this host shares (the tool list, the name map), so that a
 * fresh Server per HTTP session costs only the object itself.
 */
export function prepareMcpCatalog(host: Host) {
  const tools = host.listTools();
  const names = new ToolNameMap(tools, host.config.mcp?.nameSeparator ?? '_');
  const listed: Tool[] = tools.map((t) => ({
    name: names.mcpName(t.name),
    description: t.description,
    inputSchema: t.inputSchema as Tool['inputSchema'],
    annotations: t.annotations,
  }));
  return { names, listed };
}

export type McpCatalog = ReturnType<typeof prepareMcpCatalog>;

/**
 * Where the client supports URL elicitation (MCP 2025-11-25), authorization is asked for with
 * the protocol's own mechanism: error -32042 carrying the URL, then a completion notice once
 * the user has authorized. Other clients get the structured authorization_required result.
 */
function offerUrlElicitation(
  server: Server,
  host: Host,
  providerId: string,
  url: string,
  message: string,
): void {
  if (!server.getClientCapabilities()?.elicitation?.url) return;
  const elicitationId = new URL(url).searchParams.get('state');
  const provider = host.oauthProviders.find((p) => p.id === providerId);
  if (!elicitationId || !provider) return;
  const stop = provider.onAuthorized((event) => {
    if (event.state !== elicitationId) return;
    stop();
    server
      .createElicitationCompletionNotifier(elicitationId)()
      .catch(() => {});
  });
  setTimeout(stop, 10 * 60_000).unref();
  throw new UrlElicitationRequiredError([{ mode: 'url', message, url, elicitationId }], message);
}

/**
 * A low-level MCP server over the host. Tools are registered with their raw JSON Schemas
 * through the request handlers: the high-level `tool()` helper expects zod and drops plain
 * JSON Schema.
 */
export function createMcpServer(host: Host, catalog: McpCatalog, options: McpServerOptions = {}): Server {
  const server = new Server(
    { name: options.name ?? 'toolhost', version: options.version ?? '0.0.0' },
    { capabilities: { tools: { listChanged: false } }, instructions: SERVER_INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: catalog.listed }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const canonical = catalog.names.canonicalName(request.params.name);
    if (!canonical) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const outcome = await host.callTool(canonical, request.params.arguments ?? {}, {
      userId: options.userId,
      signal: extra.signal,
    });
    if (!outcome.ok && outcome.error.code === 'authorization_required' && outcome.error.authorization?.url) {
      offerUrlElicitation(
        server,
        host,
        outcome.error.authorization.provider,
        outcome.error.authorization.url,
        outcome.error.message,
      );
    }
    return renderOutcome(outcome);
  });
  return server;
}
