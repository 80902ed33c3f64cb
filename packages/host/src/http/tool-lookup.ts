import type { Host, ToolInfo } from '../host-api.js';
import type { ToolNameMap } from '../tool-names.js';
import type { ToolLookup } from './call-scope.js';

/** Plugin tools by the names a client may call them: MCP names and, in `call_tool`, canonical ones. */
export function toolLookupOf(host: Host, names: ToolNameMap): ToolLookup {
  const byCanonical = new Map<string, ToolInfo>(host.listTools().map((t) => [t.name, t]));
  return (name) => byCanonical.get(names.canonicalName(name) ?? name);
}
