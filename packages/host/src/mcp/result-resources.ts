import { ResourceNotFoundError, type Server, type ServerContext } from './sdk.js';
import type { McpServingState } from './serving-state.js';

/** Results over the size budget, each readable only by the user whose call produced it. */
export function serveResults(
  server: Server,
  mcpState: McpServingState,
  userOf: (ctx: ServerContext) => string,
): void {
  server.setRequestHandler('resources/list', async (_request, ctx) => ({
    resources: (await mcpState.results.listAll(userOf(ctx))).map((r) => ({
      uri: r.uri,
      name: `${mcpState.names.mcpName(r.tool)} result`,
      mimeType: 'application/json',
      size: r.bytes,
    })),
  }));
  // No templates: a stored result is read by the URI its summary gave.
  server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [] }));
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const stored = await mcpState.results.read(request.params.uri, userOf(ctx));
    if (!stored) {
      // -32602 with the URI in `data`, as 2026-07-28 asks (SEP-2164), on every era.
      throw new ResourceNotFoundError(
        request.params.uri,
        `Resource not found (results expire after ${mcpState.results.ttlSeconds} s): ${request.params.uri}`,
      );
    }
    return { contents: [{ uri: stored.uri, mimeType: 'application/json', text: stored.text }] };
  });
}
