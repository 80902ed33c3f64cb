import { TOOL_SET_TOKEN, type ToolDeclaration, type ToolSetDefinition } from '@toolhost/core';
import { containerOf, type Host } from '../host.js';
import { resolveServices } from '../services.js';

/** The tool doctor --live calls for a tool set, and why that one. */
export interface ProbeChoice {
  /** Canonical name of the tool. */
  tool: string;
  /** `GET https://api.example.com/v0/meta/whoami`: where the probe goes, so a person sees the base URL in use. */
  request: string;
}

function scopeCount(decl: ToolDeclaration): number {
  return decl.auth.kind === 'provider' ? decl.auth.scopes.length : 0;
}

function pathDepth(decl: ToolDeclaration): number {
  return decl.path.split('/').filter(Boolean).length;
}

/**
 * The cheapest read of a tool set, to check its credentials with one call: a read-only tool
 * that needs no argument, on the set's main server (the one `baseUrl` overrides; a tool on
 * another host, such as an enterprise-only SCIM server, says nothing about the main one), asking
 * for the fewest scopes (a whoami asks for none, so any valid token passes it), then the shortest
 * path. Chosen from the declarations rather than named by each plugin, so any plugin gets a probe.
 */
export function cheapestRead(host: Host, set: ToolSetDefinition): ProbeChoice | undefined {
  const settings = set.settingValues ?? {};
  const candidates = set.tools.filter((decl) => {
    const info = host.getTool(`${set.toolSet}.${decl.name}`);
    if (!info?.hints.readOnly) return false;
    if ((decl.server ?? 'default') !== 'default') return false;
    if (((info.inputSchema as { required?: string[] }).required ?? []).length > 0) return false;
    // A parameter filled from a setting that is not configured would fail before sending.
    return (decl.params ?? []).every((p) => !p.fromSetting || !p.required || settings[p.fromSetting]);
  });
  candidates.sort(
    (a, b) => scopeCount(a) - scopeCount(b) || pathDepth(a) - pathDepth(b) || a.name.localeCompare(b.name),
  );
  const best = candidates[0];
  if (!best) return undefined;
  const base = (set.servers.default ?? '').replace(/\/+$/, '');
  return { tool: `${set.toolSet}.${best.name}`, request: `${best.method} ${base}${best.path}` };
}

/** The registered tool sets, by name. */
export function registeredToolSets(host: Host): Map<string, ToolSetDefinition> {
  const sets = resolveServices(containerOf(host), TOOL_SET_TOKEN);
  return new Map(sets.map((s) => [s.toolSet, s]));
}
