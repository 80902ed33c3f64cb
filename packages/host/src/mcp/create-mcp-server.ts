import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Host, ToolInfo } from '../host.js';
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
 * The behaviour hints that differ from MCP's defaults (read-only false, destructive true,
 * idempotent false, open-world true); `destructiveHint` and `idempotentHint` only for tools
 * that write, the only ones MCP defines them for. Absent hints read as the defaults, so the
 * meaning is unchanged and the catalog is shorter by a dozen tokens a tool.
 */
export function listedAnnotations(a: ToolInfo['annotations']): Tool['annotations'] {
  const out: NonNullable<Tool['annotations']> = {};
  if (a.readOnlyHint) out.readOnlyHint = true;
  else {
    if (!a.destructiveHint) out.destructiveHint = false;
    if (a.idempotentHint) out.idempotentHint = true;
  }
  if (!a.openWorldHint) out.openWorldHint = false;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * A tool's input schema as listed: without the top-level `additionalProperties: false` (the
 * host refuses unknown parameters itself, naming the accepted ones). Every parameter keeps its
 * type, constraints and text, `mode` and `request_body` included.
 */
export function listedInputSchema(schema: Record<string, unknown>): Tool['inputSchema'] {
  const { additionalProperties, ...listed } = schema;
  return (additionalProperties === false ? listed : { ...schema }) as Tool['inputSchema'];
}

/**
 * Prepares what every MCP server of this host shares (the tool list, the name map), once, so
 * that `tools/list` answers a prepared array and a fresh Server per HTTP session costs only
 * the object itself.
 */
export function prepareMcpCatalog(host: Host) {
  const tools = host.listTools();
  const names = new ToolNameMap(tools, host.config.mcp?.nameSeparator ?? '_');
  const listed: Tool[] = tools.map((t): Tool => {
    const annotations = listedAnnotations(t.annotations);
    return {
      name: names.mcpName(t.name),
      description: t.description,
      inputSchema: listedInputSchema(t.inputSchema),
      ...(annotations ? { annotations } : {}),
    };
  });
  return { names, listed, warmed: false };
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
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    // Once the list is answered (the client's first step), load what calls need.
    if (!catalog.warmed) {
      catalog.warmed = true;
      setImmediate(() => void host.warm());
    }
    return { tools: catalog.listed };
  });
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
