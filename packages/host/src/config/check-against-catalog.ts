import type { ToolSetDefinition } from '@toolhost/core';
import { declaredCredentials, didYouMean, quoted } from '@toolhost/engine/internal';
import type { HostConfig } from './host-config.js';
import { ConfigError } from './load-config.js';
import { globMatcher } from './tool-selection.js';

/** `Airtable` → [GridApi]: the tool sets of each vendor, by the name people call it. */
function setsByVendor(toolSets: readonly ToolSetDefinition[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const s of toolSets) {
    if (!s.vendor) continue;
    const key = s.vendor.toLowerCase();
    out.set(key, [...(out.get(key) ?? []), s.toolSet].sort());
  }
  return out;
}

/** A suggestion for a mistyped tool set: the vendor's own sets when a vendor is named, else the nearest name. */
function toolSetSuggestion(name: string, toolSets: readonly ToolSetDefinition[]): string {
  const vendorSets = setsByVendor(toolSets).get(name.toLowerCase());
  if (vendorSets) {
    const list =
      vendorSets.length === 1
        ? vendorSets[0]
        : `${vendorSets.slice(0, -1).join(', ')} or ${vendorSets.at(-1)}`;
    return ` ${name} is a vendor: did you mean ${list}?`;
  }
  return didYouMean(
    name,
    toolSets.map((s) => s.toolSet),
  );
}

/**
 * Settings that would silently do nothing are errors: a `toolSets` key no loaded plugin
 * provides (a misspelled name whose `baseUrl` would never apply, so calls go to the real
 * API), an auth provider or a secret no loaded tool uses (a misspelled `CDP_API_KY` leaves
 * the real one unset), and an allow or deny glob that matches no tool. Each names the key and
 * what is known.
 */
export function checkConfigAgainstCatalog(config: HostConfig, toolSets: readonly ToolSetDefinition[]): void {
  const known = toolSets.map((s) => s.toolSet).sort();
  const loaded = `loaded: ${known.join(', ') || 'none'}`;
  const problems: string[] = [];
  for (const name of Object.keys(config.toolSets ?? {})) {
    if (!known.includes(name)) {
      problems.push(
        `${quoted(`toolSets.${name}`)}: no loaded plugin provides a tool set of that name (${loaded}).${toolSetSuggestion(name, toolSets)}`,
      );
    }
  }
  for (const name of config.tools?.toolSets ?? []) {
    if (!known.includes(name)) {
      problems.push(
        `tools.toolSets (--tool-sets, TOOLHOST_TOOL_SETS): ${quoted(name)} is not a loaded tool set (${loaded}).${toolSetSuggestion(name, toolSets)}`,
      );
    }
  }
  const declared = declaredCredentials(toolSets);
  // A provider a tool set signs users in with (its `oauth`) is used, whichever tools name it.
  for (const id of toolSets.flatMap((s) => Object.keys(s.oauth ?? {}))) declared.providers.add(id);
  const used = { providers: [...declared.providers].sort(), secrets: [...declared.secrets].sort() };
  for (const id of Object.keys(config.auth?.providers ?? {})) {
    if (!used.providers.includes(id)) {
      problems.push(
        `${quoted(`auth.providers.${id}`)}: no loaded tool uses an auth provider of that id (used: ${used.providers.join(', ') || 'none'}).${didYouMean(id, used.providers)}`,
      );
    }
  }
  for (const name of Object.keys(config.secrets ?? {})) {
    if (!used.secrets.includes(name)) {
      problems.push(
        `${quoted(`secrets.${name}`)}: no loaded tool uses a secret of that name (used: ${used.secrets.join(', ') || 'none'}).${didYouMean(name, used.secrets)}`,
      );
    }
  }
  const names = toolSets.flatMap((s) => s.tools.map((t) => `${s.toolSet}.${t.name}`));
  for (const key of ['allow', 'deny'] as const) {
    (config.tools?.[key] ?? []).forEach((glob, i) => {
      const matches = globMatcher(glob);
      if (!names.some((n) => matches(n))) {
        problems.push(
          `tools.${key}[${i}]: ${quoted(glob)} matches no tool; tools are named <ToolSet>.<Tool> (tool sets: ${known.join(', ') || 'none'}).`,
        );
      }
    });
  }
  if (problems.length > 0) throw new ConfigError(problems.join(' '));
}
