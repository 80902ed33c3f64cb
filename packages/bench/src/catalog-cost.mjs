// What the tools/list answer costs a model's context: its bytes and o200k_base tokens, in all
// and per tool set, plus the server instructions, which a client sends once.
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';

const enc = new Tiktoken(o200kBase);
const tokens = (/** @type {string} */ text) => enc.encode(text).length;

// Bytes and tokens of a value's JSON, the form in which a client passes it on.
/**
 * @param {unknown} value
 * @returns {{ bytes: number, tokens: number }}
 */
function jsonCost(value) {
  const json = JSON.stringify(value);
  return { bytes: Buffer.byteLength(json), tokens: tokens(json) };
}

/**
 * Tool names are `<ToolSet>_<operation>`, so the prefix groups the catalog by tool set.
 * @param {readonly { name: string }[]} tools as tools/list lists them
 * @param {string | undefined} instructions
 */
export function catalogCost(tools, instructions) {
  /** @type {Record<string, { name: string }[]>} */
  const bySet = {};
  for (const t of tools) {
    const set = t.name.split('_')[0] ?? t.name;
    const list = bySet[set] ?? [];
    list.push(t);
    bySet[set] = list;
  }
  const sets = Object.entries(bySet)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([toolSet, list]) => ({ toolSet, tools: list.length, ...jsonCost(list) }));
  return {
    tools: tools.length,
    ...jsonCost({ tools }),
    instructionsTokens: instructions ? tokens(instructions) : 0,
    sets,
  };
}
