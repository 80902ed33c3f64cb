import { W } from './relevance.js';
import { type RequestIntent, verbOperation } from './request-intent.js';
import type { SearchableTool } from './searchable-tool.js';
import type { ToolShape } from './tool-shape.js';

/**
 * Which product a request is about, when several products' tool sets share one index: the
 * product a request names, and the objects only one tool set acts on.
 */

/**
 * Each tool set's product, as a search term: the name most of its descriptions start with
 * (`Airtable: …`), else the tool set's own name without a generic suffix (`SendGrid`,
 * `GitHubMcp` → github).
 */
export function setVendors(
  tools: readonly SearchableTool[],
  shapes: readonly ToolShape[],
): Map<string, string> {
  const counts = new Map<string, Map<string, number>>();
  const sizes = new Map<string, number>();
  tools.forEach((t, id) => {
    sizes.set(t.toolSet, (sizes.get(t.toolSet) ?? 0) + 1);
    const vendor = shapes[id]!.vendor;
    // A product's name, capitalised and not a verb: "Update a DNS record of a domain: its
    // name…" has a colon too, but no product before it.
    const written = /^\s*([A-Za-z][\w.]*)[^:]*:/.exec(t.description)?.[1] ?? '';
    if (!vendor || !/^[A-Z]/.test(written) || verbOperation(written.toLowerCase()) !== undefined) return;
    const byVendor = counts.get(t.toolSet) ?? new Map<string, number>();
    counts.set(t.toolSet, byVendor);
    byVendor.set(vendor, (byVendor.get(vendor) ?? 0) + 1);
  });
  const vendors = new Map<string, string>();
  for (const [set, size] of sizes) {
    const [vendor, n] = [...(counts.get(set) ?? [])].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
    const own = set.replace(/(Api|Apis|Mcp|Server|Tools?)$/, '').toLowerCase();
    vendors.set(set, n * 2 >= size ? vendor : own);
  }
  return vendors;
}

/**
 * The objects only one tool set acts on, by the object nouns of its tools: a product's own
 * vocabulary (a base, a table and a field are Airtable's; a droplet is DigitalOcean's), where a
 * noun that several tool sets act on (a record, an event) tells none apart.
 */
export function ownNouns(
  tools: readonly SearchableTool[],
  shapes: readonly ToolShape[],
): Map<string, string> {
  const setsOf = new Map<string, Set<string>>();
  shapes.forEach((shape, id) => {
    for (const t of shape.head) {
      const sets = setsOf.get(t) ?? new Set<string>();
      setsOf.set(t, sets);
      sets.add(tools[id]!.toolSet);
    }
  });
  const own = new Map<string, string>();
  for (const [t, sets] of setsOf) if (sets.size === 1) own.set(t, [...sets][0]!);
  return own;
}

/** The tool set whose own objects the request names more of than any other's, if one does. */
export function domainOf(intent: RequestIntent, nouns: ReadonlyMap<string, string>): string | undefined {
  const counts = new Map<string, number>();
  for (const t of intent.stems) {
    const set = nouns.get(t);
    if (set && !intent.verbTerms.has(t)) counts.set(set, (counts.get(set) ?? 0) + 1);
  }
  const [first, second] = [...counts].sort((a, b) => b[1] - a[1]);
  return first && (!second || first[1] > second[1]) ? first[0] : undefined;
}

/** The products a request names, among those of the catalog's tool sets. */
export function namedVendors(
  query: string,
  intent: RequestIntent,
  vendors: ReadonlySet<string>,
): Set<string> {
  const named = new Set<string>();
  for (const w of [...query.toLowerCase().split(/[^a-z0-9]+/), ...intent.stems])
    if (vendors.has(w)) named.add(w);
  return named;
}

/**
 * A request that names a product is about that product's tools: they gain, and the tools of a
 * product it does not name lose (beside other servers' tools, "update the Airtable record" is
 * not about DNS records).
 */
export function vendorFit(named: ReadonlySet<string>, vendor: string): number {
  if (namesOther(named, vendor)) return -W.otherVendor;
  return vendor !== '' && named.has(vendor) ? W.vendor : 0;
}

/**
 * Whether a request that names products (`named`) names others than `vendor`'s. What the past
 * requests say of such a tool does not count (`ToolIndex#search`): "track the HubSpot sign-up
 * event", asked alike as Customer.io's tracking was, still asks HubSpot.
 */
export const namesOther = (named: ReadonlySet<string>, vendor: string): boolean =>
  named.size > 0 && vendor !== '' && !named.has(vendor);
