import { behaviorHints, TOOL_SET_TOKEN } from '@toolhost/core';
import { didYouMean, quoted } from '@toolhost/engine/internal';
import type { DependencyContainer } from 'tsyringe';
import type { ResolvedHostConfig } from './config/host-config.js';
import { hiddenBy } from './config/tool-selection.js';
import { resolveServices } from './services.js';
import { mcpToolName } from './tool-names.js';

/**
 * Why a name names no callable tool, in words that lead to the right call: the other
 * spelling (`CrmEventsApi_ListEventTypes` is the MCP name of `CrmEventsApi.ListEventTypes`),
 * the configuration key that hides it, or a close name. One text for MCP, the embedding API
 * and the CLI.
 */
export function unknownToolMessage(
  name: string,
  config: ResolvedHostConfig,
  container: DependencyContainer,
  exposed: ReadonlySet<string>,
  spelling: 'canonical' | 'mcp' = 'canonical',
): string {
  const separator = config.mcp.nameSeparator;
  const sets = resolveServices(container, TOOL_SET_TOKEN);
  const all = sets.flatMap((s) =>
    s.tools.map((t) => ({
      name: `${s.toolSet}.${t.name}`,
      toolSet: s.toolSet,
      readOnly: behaviorHints(t).readOnly,
    })),
  );
  if (spelling === 'mcp') return mcpMessage(name, separator, config, all, exposed);
  // The same tool in the other spelling: `<ToolSet><sep><Tool>` for `<ToolSet>.<Tool>` or back.
  const respelled = all.find(
    (t) =>
      t.name !== name && (mcpToolName(t.name, separator) === name || t.name === name.replace(separator, '.')),
  );
  const target = all.find((t) => t.name === name) ?? respelled;
  if (target && !exposed.has(target.name)) {
    const key = hiddenBy(config)(target);
    return `The tool ${target.name} is loaded but hidden by this host's configuration (${key ?? 'filters'}).`;
  }
  if (respelled) {
    return name.includes('.')
      ? `No tool named ${quoted(name)}. Did you mean '${respelled.name}'?`
      : `No tool named ${quoted(name)}: ${quoted(name)} is the MCP spelling; here tools are named '${respelled.name}'.`;
  }
  const lower = name.toLowerCase().replace(separator, '.');
  const close = [...exposed].filter(
    (n) => n.toLowerCase() === lower || n.toLowerCase().endsWith(`.${lower}`),
  );
  return `No tool named ${quoted(name)} is loaded.${nearMiss(lower, close, exposed)}`;
}

/** ` Did you mean …?` for names that differ only in case or tool set, else for a slip (`typed` respelled). */
function nearMiss(typed: string, close: readonly string[], known: Iterable<string>): string {
  if (close.length > 0) return ` Did you mean ${close.map((n) => `'${n}'`).join(' or ')}?`;
  return didYouMean(typed, known, "'");
}

type Known = { name: string; toolSet: string; readOnly: boolean };

/** The same answers for a name an MCP client sent, where `<ToolSet><sep><Tool>` is the right spelling. */
function mcpMessage(
  name: string,
  separator: string,
  config: ResolvedHostConfig,
  all: readonly Known[],
  exposed: ReadonlySet<string>,
): string {
  const mcp = (canonical: string) => mcpToolName(canonical, separator);
  const target = all.find((t) => t.name === name || mcp(t.name) === name);
  if (target && !exposed.has(target.name)) {
    return `The tool ${mcp(target.name)} is loaded but hidden by this host's configuration (${hiddenBy(config)(target) ?? 'filters'}).`;
  }
  if (target) return `No tool named ${quoted(name)}: over MCP it is named '${mcp(target.name)}'.`;
  const lower = name.toLowerCase().replace('.', separator);
  const close = [...exposed]
    .map(mcp)
    .filter((n) => n.toLowerCase() === lower || n.toLowerCase().endsWith(`${separator}${lower}`));
  return `No tool named ${quoted(name)} is loaded.${nearMiss(lower, close, [...exposed].map(mcp))}`;
}
