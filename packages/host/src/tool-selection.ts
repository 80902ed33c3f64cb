import type { RegisteredTool } from '@toolhost/engine';
import picomatch from 'picomatch';
import type { HostConfig } from './config/host-config.js';

/** Keeps the tools the configuration exposes: enabled tool sets, allow/deny globs, read-only. */
export function toolSelector(config: HostConfig): (tool: RegisteredTool) => boolean {
  const allow = config.tools?.allow?.length ? picomatch(config.tools.allow) : () => true;
  const deny = config.tools?.deny?.length ? picomatch(config.tools.deny) : () => false;
  const readOnly = config.tools?.readOnly === true;
  return (tool) =>
    config.toolSets?.[tool.toolSet.toolSet]?.enabled !== false &&
    allow(tool.name) &&
    !deny(tool.name) &&
    (!readOnly || tool.hints.readOnly);
}
