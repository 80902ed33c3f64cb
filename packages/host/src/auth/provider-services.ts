import type { ToolSetDefinition } from '@toolhost/core';

/** What the connections page shows of an auth provider: the vendor people know, and what to ask for. */
export interface ProviderService {
  /** `HubSpot`: the vendors of the tool sets that use the provider; the provider id where none says. */
  name: string;
  /** One scope per exposed tool that uses the provider (its first alternative), so every tool works once connected. */
  scopes: string[];
}

/** The service behind each auth provider, from the tool sets whose tools use it. */
export function providerServices(
  sets: readonly ToolSetDefinition[],
  exposed: ReadonlySet<string>,
  providers: readonly { readonly id: string }[],
): Map<string, ProviderService> {
  const vendors = new Map<string, Set<string>>();
  const scopes = new Map<string, Set<string>>();
  for (const set of sets) {
    for (const tool of set.tools) {
      if (tool.auth.kind !== 'provider') continue;
      const id = tool.auth.provider;
      if (set.vendor) vendors.set(id, (vendors.get(id) ?? new Set()).add(set.vendor));
      const first = tool.auth.scopes[0];
      if (first && exposed.has(`${set.toolSet}.${tool.name}`))
        scopes.set(id, (scopes.get(id) ?? new Set()).add(first));
    }
  }
  const out = new Map<string, ProviderService>();
  for (const p of providers) {
    const names = [...(vendors.get(p.id) ?? [])].sort();
    out.set(p.id, { name: names.join(' / ') || p.id, scopes: [...(scopes.get(p.id) ?? [])].sort() });
  }
  return out;
}
