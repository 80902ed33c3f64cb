import { servesModernEra } from './protocol-eras.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  type Server,
  type ServerContext,
} from './sdk.js';

/**
 * Who is asking, as this request tells it. On MCP 2026-07-28 every request declares its client
 * (name, capabilities) in its `_meta` envelope, and one server answers many clients' requests
 * (the revision servers), so the request is read, never the server;
 * on a session, the client said it once, in `initialize`, to the server of that session.
 */
export function clientCapabilitiesOf(server: Server, ctx: ServerContext): ClientCapabilities | undefined {
  if (!servesModernEra(server)) return server.getClientCapabilities();
  return envelopeOf(ctx)?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
}

/** The client's name (its `clientInfo.name`), read as `clientCapabilitiesOf` reads capabilities. */
export function clientNameOf(server: Server, ctx: ServerContext): string | undefined {
  if (!servesModernEra(server)) return server.getClientVersion()?.name;
  const name = (envelopeOf(ctx)?.[CLIENT_INFO_META_KEY] as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : undefined;
}

/** The request's validated `_meta` envelope, which the SDK types as an open record. */
function envelopeOf(ctx: ServerContext): Record<string, unknown> | undefined {
  return ctx.mcpReq.envelope as Record<string, unknown> | undefined;
}
