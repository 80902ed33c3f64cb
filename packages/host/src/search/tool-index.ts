import MiniSearch from 'minisearch';
import type { ToolInfo } from '../host.js';
import { processTerm, queryIntent, tokenize } from './search-terms.js';

/** One tool found by a search, best first. */
export interface ToolMatch {
  /** Canonical name `<ToolSet>.<ToolName>`. */
  name: string;
  toolSet: string;
  description: string;
  readOnly: boolean;
  /** BM25 relevance; comparable only within one search. */
  score: number;
}

export interface ToolSearchOptions {
  /** How many tools at most (default 5). */
  limit?: number;
  /** Only tools of this tool set (e.g. `GridApi`), compared case-insensitively. */
  toolSet?: string;
}

interface IndexedTool {
  id: number;
  /** The tool's name and its tool set's, split into words by the tokenizer. */
  name: string;
  description: string;
  /** Parameter names (not `mode` and `request_body`, which every mode tool has). */
  params: string;
}

// A description says what a tool does in users' words; a name says it in the API's. Parameter
// names tell apart tools that differ in what they are given (an email versus a contact id).
const BOOST = { name: 1.5, description: 2, params: 0.2 };
// A request that only asks to look favours tools that change nothing, and the other way round:
// "show the comments on a record" means listing them, not editing one.
const INTENT_BOOST = 2;
const GENERIC_PARAMS = new Set(['mode', 'request_body']);

/**
 * A full-text index of the tools (BM25+, MiniSearch) over names, descriptions and parameter
 * names, with the vocabulary of `search-terms.ts`. Built once per catalog; a search is a few
 * hundred microseconds for a couple of hundred tools.
 */
export class ToolIndex {
  private readonly tools: readonly ToolInfo[];
  private readonly index: MiniSearch<IndexedTool>;

  constructor(tools: readonly ToolInfo[]) {
    this.tools = tools;
    this.index = new MiniSearch<IndexedTool>({
      fields: ['name', 'description', 'params'],
      tokenize,
      processTerm,
      searchOptions: {
        boost: BOOST,
        // Typos in longer words still find their term; the weight keeps exact words first.
        fuzzy: (term) => (term.length > 5 ? 0.15 : false),
        weights: { fuzzy: 0.3, prefix: 0.3 },
      },
    });
    this.index.addAll(
      tools.map((t, id) => ({
        id,
        name: `${t.name.slice(t.toolSet.length + 1)} ${t.toolSet}`,
        description: t.description,
        params: Object.keys((t.inputSchema.properties as Record<string, unknown> | undefined) ?? {})
          .filter((p) => !GENERIC_PARAMS.has(p))
          .join(' '),
      })),
    );
  }

  /** The tools that best match `query`, best first; none for a query of common words only. */
  search(query: string, options: ToolSearchOptions = {}): ToolMatch[] {
    const limit = options.limit ?? 5;
    const set = options.toolSet?.toLowerCase();
    const intent = queryIntent(query);
    const results = this.index.search(query, {
      filter: set ? (r) => this.tools[r.id]!.toolSet.toLowerCase() === set : undefined,
      boostDocument: intent
        ? (id) =>
            this.tools[id as number]!.annotations.readOnlyHint === (intent === 'read') ? INTENT_BOOST : 1
        : undefined,
    });
    return results.slice(0, limit).map((r) => {
      const tool = this.tools[r.id]!;
      return {
        name: tool.name,
        toolSet: tool.toolSet,
        description: tool.description,
        readOnly: tool.annotations.readOnlyHint,
        score: r.score,
      };
    });
  }
}
