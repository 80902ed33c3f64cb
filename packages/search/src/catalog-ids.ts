import { tokenize } from './search-terms.js';
import type { SearchableTool } from './searchable-tool.js';
import { type IdShape, paramShapes, type ToolShape } from './tool-shape.js';

/**
 * What a catalog's parameters say of the identifiers a request may carry: the prefixes its ids
 * are written with, and the object each kind of id stands for.
 */

const ID_WORDS = new Set(['id', 'ids', 'identifier', 'uuid', 'guid', 'key', 'or', 'name']);

/** Per identifier shape, the word most parameters taking it are named by (`user_id` → user). */
export function idObjects(tools: readonly SearchableTool[]): Map<IdShape, string> {
  const counts = new Map<IdShape, Map<string, number>>();
  const setWords = new Set(tools.flatMap((t) => tokenize(t.toolSet).map((w) => w.toLowerCase())));
  for (const t of tools)
    for (const [name, schema] of Object.entries(
      (t.inputSchema.properties as Record<string, Record<string, unknown>> | undefined) ?? {},
    ))
      for (const shape of paramShapes(name, schema)) {
        const byWord = counts.get(shape) ?? new Map<string, number>();
        counts.set(shape, byWord);
        for (const w of tokenize(name).map((x) => x.toLowerCase()))
          if (!ID_WORDS.has(w) && !setWords.has(w) && w !== 'grid') byWord.set(w, (byWord.get(w) ?? 0) + 1);
      }
  const objects = new Map<IdShape, string>();
  for (const [shape, byWord] of counts) {
    const best = [...byWord].sort((a, b) => b[1] - a[1])[0];
    if (best) objects.set(shape, best[0]);
  }
  return objects;
}

/** The id prefixes the tools' parameters take (`rec`, `tbl`), to find ids in a request. */
export function idPrefixes(shapes: readonly ToolShape[]): string[] {
  return [
    ...new Set(
      shapes.flatMap((s) => [...s.ids.keys()].filter((k) => k.startsWith('prefix:')).map((k) => k.slice(7))),
    ),
  ];
}
