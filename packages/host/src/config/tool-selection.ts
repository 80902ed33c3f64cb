import { createRequire } from 'node:module';
import type { RegisteredTool } from '@toolhost/engine';
import type Picomatch from 'picomatch';
import type { HostConfig } from './host-config.js';

const require = createRequire(import.meta.url);
// Loaded when a glob is configured, and required, not imported: see docs/performance.md,
// "CommonJS packages at start".
/** A matcher for canonical tool names: true for a name any of the globs matches. */
export const globMatcher = (glob: string | string[]) => (require('picomatch') as typeof Picomatch)(glob);

/** What the filters look at: the canonical name, the tool set and whether the tool only reads. */
export interface SelectableTool {
  name: string;
  toolSet: string;
  readOnly: boolean;
}

/**
 * The configuration key that hides a tool, or undefined when the tool is exposed: the tool
 * set disabled or not chosen, not allowed, denied, or not read-only on a read-only host.
 */
export function hiddenBy(config: HostConfig): (tool: SelectableTool) => string | undefined {
  const allow = config.tools?.allow?.length ? globMatcher(config.tools.allow) : () => true;
  const deny = config.tools?.deny?.length ? globMatcher(config.tools.deny) : () => false;
  const readOnly = config.tools?.readOnly === true;
  const sets = config.tools?.toolSets ? new Set(config.tools.toolSets) : undefined;
  return (tool) => {
    if (config.toolSets?.[tool.toolSet]?.enabled === false) return `toolSets.${tool.toolSet}.enabled`;
    if (sets && !sets.has(tool.toolSet)) return 'tools.toolSets';
    if (!allow(tool.name)) return 'tools.allow';
    if (deny(tool.name)) return 'tools.deny';
    if (readOnly && !tool.readOnly) return 'tools.readOnly';
    return undefined;
  };
}

/** Keeps the tools the configuration exposes: enabled tool sets, allow/deny globs, read-only. */
export function toolSelector(config: HostConfig): (tool: RegisteredTool) => boolean {
  const hidden = hiddenBy(config);
  return (tool) =>
    hidden({ name: tool.name, toolSet: tool.toolSet, readOnly: tool.hints.readOnly }) === undefined;
}
