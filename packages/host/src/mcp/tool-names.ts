import type { ToolInfo } from '../host.js';

/** Tool names many MCP clients accept (no dots). */
const CLIENT_SAFE = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Maps canonical `<ToolSet>.<ToolName>` names to MCP names `<ToolSet><sep><ToolName>` and back.
 * The canonical name stays the one in logs, the CLI and the embedding API.
 */
export class ToolNameMap {
  private readonly toMcp = new Map<string, string>();
  private readonly toCanonical = new Map<string, string>();

  constructor(tools: readonly ToolInfo[], separator = '_') {
    for (const tool of tools) {
      const mcpName = tool.name.replace('.', separator);
      if (this.toCanonical.has(mcpName)) {
        throw new Error(
          `Tools ${this.toCanonical.get(mcpName)} and ${tool.name} both map to MCP name ${mcpName}`,
        );
      }
      if (separator === '_' && !CLIENT_SAFE.test(mcpName)) {
        throw new Error(`Tool name ${mcpName} is not accepted by common MCP clients (${CLIENT_SAFE})`);
      }
      this.toMcp.set(tool.name, mcpName);
      this.toCanonical.set(mcpName, tool.name);
    }
  }

  mcpName(canonical: string): string {
    return this.toMcp.get(canonical) ?? canonical;
  }

  canonicalName(mcpName: string): string | undefined {
    return this.toCanonical.get(mcpName);
  }
}
