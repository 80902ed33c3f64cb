import { RESULT_URI_PREFIX } from './result-store.js';
import { type McpServer, ResourceNotFoundError, ResourceTemplate, type ServerContext } from './sdk.js';
import type { McpServingState } from './serving-state.js';

/**
 * Results over the size budget, each readable only by the user whose call produced it: a
 * template in the SDK's resource registry (`toolhost://results/{id}`), so that other
 * resources (the tool sets' skills) are served beside them.
 */
export function serveResults(
  mcp: McpServer,
  mcpState: McpServingState,
  userOf: (ctx: ServerContext) => string,
): void {
  const { results, names } = mcpState;
  mcp.registerResource(
    'results',
    new ResourceTemplate(`${RESULT_URI_PREFIX}{id}`, {
      list: async (ctx) => ({
        resources: (await results.listAll(userOf(ctx))).map((r) => ({
          uri: r.uri,
          name: `${names.mcpName(r.tool)} result`,
          mimeType: 'application/json',
          size: r.bytes,
        })),
      }),
    }),
    {
      description: 'A tool result over the size budget, whole, by the link its summary gave.',
      mimeType: 'application/json',
    },
    async (uri, _variables, ctx) => {
      const stored = await results.read(uri.href, userOf(ctx));
      if (!stored) {
        // -32602 with the URI in `data`, as 2026-07-28 asks (SEP-2164), on every era.
        throw new ResourceNotFoundError(
          uri.href,
          `Resource not found (results expire after ${results.ttlSeconds} s): ${uri.href}`,
        );
      }
      return { contents: [{ uri: stored.uri, mimeType: 'application/json', text: stored.text }] };
    },
  );
}
