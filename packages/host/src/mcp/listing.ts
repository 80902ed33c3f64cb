import type { BehaviorHints } from '@toolhost/core';
import type { ToolInfo } from '../host-api.js';
import type { Tool } from './sdk.js';

/** MCP tool annotations as a listing carries them; an absent hint reads as MCP's default. */
export interface ListedAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * A tool's hints as MCP annotations: only those that differ from MCP's defaults (read-only
 * false, destructive true, idempotent false, open-world true), and `destructiveHint` and
 * `idempotentHint` only for tools that write, the only ones MCP defines them for. Absent hints
 * read as the defaults, so the meaning is unchanged and a listing is shorter by a dozen tokens
 * a tool.
 */
export function listedAnnotations(hints: BehaviorHints): ListedAnnotations | undefined {
  const out: ListedAnnotations = {};
  if (hints.readOnly) out.readOnlyHint = true;
  else {
    if (!hints.destructive) out.destructiveHint = false;
    if (hints.idempotent) out.idempotentHint = true;
  }
  if (!hints.openWorld) out.openWorldHint = false;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The reverse, for a reader of a listing (the testing kit): each hint's effective value. */
export function effectiveAnnotations(listed: ListedAnnotations | undefined): Required<ListedAnnotations> {
  return {
    readOnlyHint: listed?.readOnlyHint ?? false,
    destructiveHint: listed?.destructiveHint ?? true,
    idempotentHint: listed?.idempotentHint ?? false,
    openWorldHint: listed?.openWorldHint ?? true,
  };
}

/**
 * A tool as `tools/list` shows it: its MCP name, and its description and input schema as the
 * host describes the tool (the same objects: nothing is converted but the hints).
 */
export function listedTool(tool: ToolInfo, mcpName: string): Tool {
  const annotations = listedAnnotations(tool.hints);
  // A shortened name (`CMA_…`) says which tool set only by its initials: the title says it whole.
  const shortened = !mcpName.startsWith(tool.name.slice(0, Math.max(0, tool.name.indexOf('.'))));
  return {
    name: mcpName,
    ...(shortened ? { title: tool.name } : {}),
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    ...(annotations ? { annotations } : {}),
  };
}
