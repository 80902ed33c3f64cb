import type { ToolInfo } from './host-api.js';

/** Tool names many MCP clients accept (no dots). */
const CLIENT_SAFE = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The longest MCP name the host lists. Clients put the server's name before a tool's and the
 * model APIs take names of at most 64 characters: Claude Code sends `mcp__<server>__<tool>`
 * (15 more with the server named `toolhost`), VS Code `mcp_<server>_<tool>` (13 more), Cursor
 * warns past 60 for server and tool together (8 more). 64 − 15 leaves 49.
 */
export const MAX_MCP_NAME = 49;

/**
 * The MCP name of a canonical `<ToolSet>.<ToolName>`: `<ToolSet><sep><ToolName>`, or, when that
 * is longer than {@link MAX_MCP_NAME}, the tool set's capitals in its place
 * (`CrmMarketingApi.GetMarketingEventParticipationsBreakdown` is
 * `CMA_GetMarketingEventParticipationsBreakdown`). Names that fit keep the long form, so a name
 * a client already uses never changes.
 */
export function mcpToolName(canonical: string, separator = '_'): string {
  const dot = canonical.indexOf('.');
  if (dot < 0) return canonical;
  const full = canonical.replace('.', separator);
  if (full.length <= MAX_MCP_NAME) return full;
  const toolSet = canonical.slice(0, dot);
  const initials = toolSet.replace(/[^A-Z0-9]/g, '') || toolSet.slice(0, 3);
  return `${initials}${separator}${canonical.slice(dot + 1)}`;
}

/**
 * Maps canonical `<ToolSet>.<ToolName>` names to MCP names (see {@link mcpToolName}) and back.
 * The canonical name stays the one in logs, the CLI and the embedding API.
 */
export class ToolNameMap {
  private readonly toMcp = new Map<string, string>();
  private readonly toCanonical = new Map<string, string>();

  constructor(tools: readonly ToolInfo[], separator = '_') {
    for (const tool of tools) {
      const mcpName = mcpToolName(tool.name, separator);
      if (this.toCanonical.has(mcpName)) {
        throw new Error(
          `Tools ${this.toCanonical.get(mcpName)} and ${tool.name} both map to MCP name ${mcpName}`,
        );
      }
      if (separator === '_' && !CLIENT_SAFE.test(mcpName)) {
        throw new Error(`Tool name ${mcpName} is not accepted by common MCP clients (${CLIENT_SAFE})`);
      }
      if (mcpName.length > MAX_MCP_NAME) {
        throw new Error(
          `Tool name ${mcpName} is longer than ${MAX_MCP_NAME} characters: with the prefix clients add it passes the model APIs' 64`,
        );
      }
      this.toMcp.set(tool.name, mcpName);
      this.toCanonical.set(mcpName, tool.name);
    }
    // A shortened tool still answers to its long form, for a client that kept the name.
    for (const tool of tools) {
      const full = tool.name.replace('.', separator);
      if (!this.toCanonical.has(full)) this.toCanonical.set(full, tool.name);
    }
  }

  mcpName(canonical: string): string {
    return this.toMcp.get(canonical) ?? canonical;
  }

  canonicalName(mcpName: string): string | undefined {
    return this.toCanonical.get(mcpName);
  }
}
