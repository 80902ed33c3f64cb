import type { Host } from '../host-api.js';
import { shortName } from './call-audit.js';
import { withCallerTrace } from './caller-trace.js';
import { type Narrowing, narrowingOf } from './catalog-views.js';
import { clientNameOf } from './client-identity.js';
import { serveResults } from './result-resources.js';
import {
  instructionsAtInitialize,
  McpServer,
  refuseInvalidParams,
  type Server,
  type ServerContext,
} from './sdk.js';
import { type McpServingState, viewFor } from './serving-state.js';
import { type AwaitCompletion, completionToThisServer, ToolCalls } from './tool-calls.js';

export interface McpServerOptions {
  name?: string;
  version?: string;
  /** The user calls on this server are made for (per HTTP session). */
  userId?: string;
  /**
   * Arranges the completion notice of a URL elicitation. By default this server sends it when
   * the sign-in tells it; with replicas sharing sessions the shared store keeps it for
   * whichever replica holds the client's event stream.
   */
  awaitCompletion?: AwaitCompletion;
  /** What the session's initialize request narrowed the catalog to: its instructions fit that view. */
  narrowing?: Narrowing;
  /**
   * Serves the requests of many users, each standing alone (MCP 2026-07-28 over HTTP, one server
   * reused across requests): a request's user is the one the endpoint authenticated for it
   * (`ctx.http.authInfo`), not `userId`.
   */
  userPerRequest?: boolean;
  /** Protocol revisions the server accepts besides the SDK's defaults (2026-07-28 for a revision server). */
  supportedProtocolVersions?: string[];
}

/**
 * An MCP server over the host. Tools are registered with their raw JSON Schemas through the
 * low-level request handlers: the high-level `tool()` helper expects zod and drops plain JSON
 * Schema. Resources go through the SDK's high-level registry, which the Skills extension needs.
 */
export function createMcpServer(
  host: Host,
  mcpState: McpServingState,
  options: McpServerOptions = {},
): Server {
  const mcp = newMcpServer(mcpState, options);
  const server = mcp.server;
  const userOf = options.userPerRequest ? requestUser : () => options.userId ?? host.config.defaultUserId;
  auditInvalidParams(server, mcpState, userOf);
  server.registerCapabilities({ tools: { listChanged: false } });
  instructionsAtInitialize(
    server,
    (client, ctx) =>
      mcpState.views.view(narrowingOf(ctx.http?.req?.headers) ?? options.narrowing, client).instructions,
  );
  serveToolList(server, host, mcpState);
  serveToolCalls(server, host, mcpState, options, userOf);
  serveResults(mcp, mcpState, userOf);
  mcpState.skills.attach(mcp);
  return server;
}

/** The SDK's server, with the host's capabilities, instructions, cache hints and state check. */
function newMcpServer(mcpState: McpServingState, options: McpServerOptions): McpServer {
  return new McpServer(
    { name: options.name ?? 'toolhost', version: options.version ?? '0.0.0' },
    {
      // `logging`: a call's waits and retries go to the client as log notifications of the
      // request, at or above the level it asked for (`logging/setLevel` on a session, the
      // per-request `_meta` level on 2026-07-28, where none is sent without one).
      capabilities: { resources: { listChanged: false }, logging: {} },
      instructions: mcpState.views.view(options.narrowing).instructions,
      cacheHints: mcpState.cacheHints,
      // Checked before any handler runs: a state that fails is -32602, and never reaches one.
      requestState: { verify: (state, ctx) => mcpState.confirmations.codec.verify(state, ctx) },
      ...(options.supportedProtocolVersions
        ? { supportedProtocolVersions: options.supportedProtocolVersions }
        : {}),
    },
  );
}

/** A call refused for its params (nested too deep, not the protocol's shape) has its audit line too. */
function auditInvalidParams(
  server: Server,
  mcpState: McpServingState,
  userOf: (ctx?: ServerContext) => string,
): void {
  refuseInvalidParams(server, (method, params, ctx) => {
    if (method !== 'tools/call') return;
    const client = clientNameOf(server, ctx);
    mcpState.audit?.record({
      event: 'tool_call',
      user: userOf(ctx),
      ...(client ? { client } : {}),
      tool: shortName(params?.name),
      outcome: 'invalid_params',
    });
  });
}

/** `tools/call`: one ToolCalls for a server of one user; one per call (a few fields) where each request names its own. */
function serveToolCalls(
  server: Server,
  host: Host,
  mcpState: McpServingState,
  options: McpServerOptions,
  userOf: (ctx?: ServerContext) => string,
): void {
  const awaitCompletion = options.awaitCompletion ?? completionToThisServer(server);
  const calls = options.userPerRequest
    ? undefined
    : new ToolCalls(server, host, mcpState, userOf(), options.userId, awaitCompletion);
  server.setRequestHandler('tools/call', (request, ctx) => {
    const answering =
      calls ?? new ToolCalls(server, host, mcpState, userOf(ctx), userOf(ctx), awaitCompletion);
    return withCallerTrace(ctx.mcpReq._meta ?? request.params._meta, () =>
      answering.answer(request.params, ctx),
    );
  });
}

/** The user the endpoint authenticated a request for (access tokens, or the default user). */
function requestUser(ctx?: ServerContext): string {
  return ctx?.http?.authInfo?.clientId ?? '';
}

/** `tools/list`: the prepared list of the request's catalog view. */
function serveToolList(server: Server, host: Host, mcpState: McpServingState): void {
  server.setRequestHandler('tools/list', async (_request, ctx) => {
    const view = viewFor(mcpState, ctx, server);
    // Once the list is answered (the client's first step), load what calls need. A timer, not
    // setImmediate: the stdio transport writes this turn's answers in a setImmediate queued
    // after this one, and loading first (synchronous on Node 22) held the answer back.
    if (!mcpState.warmed) {
      mcpState.warmed = true;
      mcpState.warming = new Promise<void>((resolve) =>
        setTimeout(() => {
          // A failed warm-up shows at the first call that needs it; closing never throws for it.
          Promise.allSettled([view.discovery?.warm(), host.warm()]).then(() => resolve());
        }, 0),
      );
    }
    return { tools: view.listed };
  });
}
