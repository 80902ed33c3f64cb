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
  type MessageExtraInfo,
  PerRequestHTTPServerTransport,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type RequestId,
  type RequestStateCodec,
  ResourceNotFoundError,
  Server,
  type ServerContext,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Tool,
  type Transport,
  type TransportSendOptions,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/server';
export { serveStdio } from '@modelcontextprotocol/server/stdio';

/** The operations whose 2026-07-28 results carry cache hints (`ServerOptions.cacheHints`). */
export type CacheableMethod = keyof NonNullable<
  import('@modelcontextprotocol/server').ServerOptions['cacheHints']
>;
