/**
 * The one module of the host that imports the MCP SDK (the v2 line, `@modelcontextprotocol/server`).
 * Everything else of the host takes the SDK's names from here, so that the next SDK or protocol
 * revision changes this file and the code that uses what changed, not every import.
 */
export {
  type CacheHint,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  classifyInboundRequest,
  createMcpHandler,
  createRequestStateCodec,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  isJsonContentType,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type McpHttpHandler,
  McpServer,
  type MessageExtraInfo,
  PerRequestHTTPServerTransport,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type RequestId,
  type RequestStateCodec,
  ResourceNotFoundError,
  ResourceTemplate,
  Server,
  type ServerContext,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Tool,
  type Transport,
  type TransportSendOptions,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/server';
export {
  type Skill,
  type SkillReadResult,
  type SkillSource,
  SkillsExtension,
  skillEntry,
} from '@modelcontextprotocol/server/ext/skills';
export { serveStdio } from '@modelcontextprotocol/server/stdio';

/** The operations whose 2026-07-28 results carry cache hints (`ServerOptions.cacheHints`). */
export type CacheableMethod = keyof NonNullable<
  import('@modelcontextprotocol/server').ServerOptions['cacheHints']
>;

import {
  type InitializeResult,
  type JSONRPCRequest as Request,
  ProtocolError as RequestError,
  ProtocolErrorCode as RequestErrorCode,
  type Server as SdkServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { describeSchemaFailure, paramsTooDeep } from './request-params.js';

type Handler = (request: Request, ctx: ServerContext) => Promise<Record<string, unknown>>;

/**
 * Requests whose params do not fit are answered as invalid params naming what was expected
 * (-32602), never as an internal error with the validator's raw output (the SDK's answer), and
 * params nested beyond any real use are refused before the SDK's checks recurse into them.
 * Covers the handlers `server` has and those registered later (the SDK's `_wrapHandler` hook,
 * on the instance: the high-level server builds its own). `onInvalid` is told of each refusal.
 */
export function refuseInvalidParams(
  server: SdkServer,
  onInvalid: (method: string, params: Request['params'], ctx: ServerContext) => void,
): void {
  const hooks = server as unknown as {
    _wrapHandler(method: string, handler: Handler): Handler;
    _requestHandlers: Map<string, Handler>;
  };
  const wrap = hooks._wrapHandler.bind(server);
  const guarded = (method: string, inner: Handler): Handler => {
    const refuse = (request: Request, ctx: ServerContext, message: string) => {
      onInvalid(method, request.params, ctx);
      return new RequestError(RequestErrorCode.InvalidParams, message);
    };
    return async (request, ctx) => {
      const tooDeep = paramsTooDeep(method, request.params);
      if (tooDeep) throw refuse(request, ctx, tooDeep);
      try {
        return await inner(request, ctx);
      } catch (e) {
        const described = describeSchemaFailure(method, e);
        if (described === undefined) throw e;
        throw refuse(request, ctx, described);
      }
    };
  };
  hooks._wrapHandler = (method, handler) => guarded(method, wrap(method, handler));
  // And those the high-level server registered as it was built (resources).
  for (const [method, handler] of hooks._requestHandlers)
    hooks._requestHandlers.set(method, guarded(method, handler));
}

/**
 * Answers `initialize` with instructions chosen for the client it names, where the SDK takes
 * one text when the server is built, before any client has said who it is. Only `initialize`:
 * on 2026-07-28 the SDK's entry installs its own `server/discover` on the servers it runs.
 */
export function instructionsAtInitialize(
  server: SdkServer,
  instructionsFor: (clientName: string | undefined, ctx: ServerContext) => string,
): void {
  // The SDK's own answer (version negotiation, capabilities, identity) with the instructions
  // set just before it reads them: no later than its own answer would be, so that replies on
  // the same connection keep their order.
  const sdk = server as unknown as {
    _instructions?: string;
    _oninitialize(request: unknown): Promise<InitializeResult>;
  };
  server.setRequestHandler('initialize', (request, ctx) => {
    sdk._instructions = instructionsFor(request.params.clientInfo?.name, ctx);
    return sdk._oninitialize(request);
  });
}
