// What the tools/list answer costs a model's context: its bytes and o200k_base tokens, in all
// and per tool set, plus the server instructions, which a client sends once.
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';

const enc = new Tiktoken(o200kBase);
const tokens = (text) => enc.encode(text).length;

// Bytes and tokens of a value's JSON, the form in which a client passes it on.
function jsonCost(value) {
  const json = JSON.stringify(value);
  return { bytes: Buffer.byteLength(json), tokens: tokens(json) };
}

/** Tool names are `<ToolSet>_<operation>`, so the prefix groups the catalog by tool set. */
export function catalogCost(tools, instructions) {
  const bySet = {};
  for (const t of tools) {
    const set = t.name.split('_')[0];
    bySet[set] ??= [];
    bySet[set].push(t);
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
