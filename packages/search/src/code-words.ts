import { tokenize } from './search-terms.js';

/** Words as code and catalogs write them: identifiers, joined names, HTTP methods. */

/**
 * Two neighbouring words of a tool's name written as one, as code spells them
 * (`SendPageViewEvent` → pageview; `track_pageview()`, `whoami`).
 */
export function nameBigrams(text: string): string[] {
  const ws = tokenize(text).map((w) => w.toLowerCase());
  return ws.slice(1).map((w, i) => `${ws[i]}${w}`);
}

// An HTTP method written as the API's documentation writes it, in capitals: "use PATCH", "(PUT)".
export const HTTP_METHOD = /\b(GET|POST|PUT|PATCH|DELETE)\b/g;

/** A parameter's name without case or separators: `return_fields_by_field_id` → returnfieldsbyfieldid. */
export function identifierKey(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * Words of a request written as code (`filterByFormula`, `page_size`): a parameter's name the
 * asker read in the API's documentation, which names the tools that take it.
 */
export function identifiersIn(query: string): string[] {
  return [...query.matchAll(/\b[a-z]+(?:[A-Z][a-z0-9]*)+\b|\b[a-z0-9]+(?:_[a-z0-9]+)+\b/g)].map((m) =>
    identifierKey(m[0]),
  );
}

/** Mixed-case words of a description, whole and lower-cased: `HyperDB` → hyperdb. */
export function compounds(text: string): string[] {
  return [...text.matchAll(/\b[A-Za-z]*[a-z][A-Z][A-Za-z]*\b/g)].map((m) => m[0].toLowerCase());
}
