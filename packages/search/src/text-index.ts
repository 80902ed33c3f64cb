import MiniSearch from 'minisearch';
import { compounds, nameBigrams } from './code-words.js';
import { literalTerm, processTerm, tokenize, VOCABULARY_PRODUCTS } from './search-terms.js';
import type { SearchableTool } from './searchable-tool.js';

/** Parameters every mode tool has: they tell no tool apart. */
export const GENERIC_PARAMS: ReadonlySet<string> = new Set(['mode', 'request_body']);

export interface IndexedTool {
  id: number;
  /** The tool's name and its tool set's, split into words by the tokenizer. */
  name: string;
  description: string;
  /** Parameter names (not `mode` and `request_body`, which every mode tool has). */
  params: string;
  /** The literal segments of the endpoint's path (`/meta/bases/{baseId}/tables` → meta bases tables). */
  path: string;
}

/** The full-text index of the tools' names, descriptions, parameters and paths. */
export function textIndex(
  tools: readonly SearchableTool[],
  vendors: readonly string[],
): MiniSearch<IndexedTool> {
  // Whether the tool being added is of a product the vocabulary maps users' words to; another
  // product's description is indexed in its own words (see `VOCABULARY_PRODUCTS`).
  let mapped = true;
  const index = new MiniSearch<IndexedTool>({
    fields: ['name', 'description', 'params', 'path'],
    // Catalog words written in mixed case (`HyperDB`, `eDiscovery`) are also indexed whole, as
    // users type them ("hyperdb"); a request is split the same way as before.
    tokenize: (text, field) => [
      ...tokenize(text),
      ...compounds(text),
      ...(field === 'name' ? nameBigrams(text) : []),
    ],
    processTerm: (w) => [...(mapped ? processTerm(w) : literalTerm(w))],
    // No fuzzy or prefix matching: the spelling fixer has already added the catalog word a
    // misspelt one stands for, and matching every term by edit distance cost most of a
    // search's time in a catalog of a thousand tools (and found unrelated words: `select` →
    // `selective`).
  });
  const documents = tools.map((t, id) => ({
    id,
    name: `${t.name.slice(t.toolSet.length + 1)} ${t.toolSet}`,
    // A parameter the description quotes by name ("give 'new_field_name'") is the params
    // field's to count: said twice, its words would outweigh what the tool acts on.
    description: t.description.replace(/'[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+'/g, ' '),
    params: Object.keys((t.inputSchema.properties as Record<string, unknown> | undefined) ?? {})
      .filter((p) => !GENERIC_PARAMS.has(p))
      .join(' '),
    path: (t.endpoint?.path ?? '')
      .split('/')
      .filter((seg) => seg.length > 0 && !seg.startsWith('{') && !/^v\d+$/i.test(seg))
      .join(' '),
  }));
  // One at a time: MiniSearch hands `processTerm` a word and its field, not its document.
  for (const doc of documents) {
    mapped = VOCABULARY_PRODUCTS.has(vendors[doc.id] ?? '');
    index.add(doc);
  }
  return index;
}
