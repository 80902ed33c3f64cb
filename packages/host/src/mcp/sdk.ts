/**
 * The one module of the host that imports the MCP SDK (the v2 line, `@modelcontextprotocol/server`).
 * Everything else of the host takes the SDK's names from here, so that the next SDK or protocol
 * revision changes this file and the code that uses what changed, not every import.
 */
export {
  type CallToolResult,
  createMcpHandler,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type McpHttpHandler,
  type MessageExtraInfo,
  ProtocolError,
  ProtocolErrorCode,
  type RequestId,
  Server,
  type ServerContext,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Tool,
  type Transport,
  type TransportSendOptions,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/server';
export { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
