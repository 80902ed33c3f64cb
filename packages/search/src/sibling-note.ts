import type { SearchableTool } from './searchable-tool.js';
import type { Operation, ToolShape } from './tool-shape.js';

/**
 * One line per tool saying how it differs from its nearest sibling, the tool an agent could
 * most easily take it for: derived from both tools' shapes (operation, object, path, ids),
 * so every catalog gets them without writing any by hand.
 */

const DOES: Record<Operation, string> = {
  list: 'lists them',
  get: 'reads one',
  search: 'searches',
  create: 'creates',
  update: 'changes only the fields given',
  replace: 'replaces it whole',
  upsert: 'creates or replaces',
  delete: 'deletes',
  send: 'sends',
  link: 'links',
  action: 'acts',
};

const third = (verb: string) =>
  /(s|sh|ch|x)$/.test(verb) ? `${verb}es` : /[^aeiou]y$/.test(verb) ? `${verb.slice(0, -1)}ies` : `${verb}s`;
const does = (shape: ToolShape) =>
  shape.op === 'action' ? third(shape.actionVerb ?? 'act') : DOES[shape.op];
const article = (word: string) => (/^[aeio]/i.test(word) ? `an ${word}` : `a ${word}`);
// Words that name an id without telling ids apart (`crm_email_id` and `email_identifier` are one).
const ID_NOISE = new Set(['id', 'identifier', 'crm', 'grid', 'unique', 'internal', 'object']);
const idWords = (shape: ToolShape) =>
  [...new Set(shape.pathParams.flatMap((p) => p.split('_')).filter((w) => !ID_NOISE.has(w)))]
    .sort()
    .join(' ');
/** One object's words are all in the other's: `marketing event` and `marketing event event`. */
function sameObject(a: string, b: string): boolean {
  const x = new Set(a.split(' '));
  const y = new Set(b.split(' '));
  return [...x].every((w) => y.has(w)) || [...y].every((w) => x.has(w));
}
const related = (a: ToolShape, b: ToolShape) =>
  a.route.startsWith(`${b.route}/`) || b.route.startsWith(`${a.route}/`);
const shortName = (tool: SearchableTool) => tool.name.slice(tool.toolSet.length + 1);

function overlap(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const bs = new Set(b);
  const shared = a.filter((x) => bs.has(x)).length;
  return shared / (a.length + b.length - shared);
}

function sharedPrefix(a: string, b: string): number {
  const x = a.split('/');
  const y = b.split('/');
  let n = 0;
  while (n < x.length && n < y.length && x[n] === y[n]) n += 1;
  return n / Math.max(x.length, y.length);
}

/** Words of the parameters that identify the object (`external_event_id` → external event id). */
function identifiedBy(shape: ToolShape): string {
  return shape.pathParams.map((p) => p.replace(/_/g, ' ')).join(' and ');
}

/** How `tool` differs from `sibling`, in a few words. */
function contrast(
  tool: SearchableTool,
  shape: ToolShape,
  siblingTool: SearchableTool,
  sibling: ToolShape,
  siblingName: string,
): string {
  const vs = ` (${siblingName})`;
  if (shape.op !== sibling.op || (shape.op === 'action' && shape.actionVerb !== sibling.actionVerb))
    return `${does(shape)}, where ${siblingName} ${does(sibling)}`;
  const same = sameObject(shape.object, sibling.object);
  if (shape.batch !== sibling.batch && same)
    return shape.batch ? `several in one call, not one at a time${vs}` : `one at a time, not several${vs}`;
  if (!same && sibling.route.startsWith(`${shape.route}/`))
    return `the ${shape.object} itself, not one ${sibling.object} of it${vs}`;
  if (!same && shape.route.startsWith(`${sibling.route}/`))
    return `one ${shape.object} of ${article(sibling.object)}, not the ${sibling.object} itself${vs}`;
  if (same && idWords(shape) !== idWords(sibling))
    return idWords(shape)
      ? `by ${identifiedBy(shape)}, not by ${identifiedBy(sibling) || 'ids in the body'}${vs}`
      : `by ids in the body, not by ${identifiedBy(sibling)}${vs}`;
  if (!same) return `the ${shape.object}, not the ${sibling.object}${vs}`;
  // Nothing in the shapes tells them apart (`/identify` and `/group` on a person): their
  // descriptions' first clauses do.
  const mine = firstClause(tool.description);
  const theirs = firstClause(siblingTool.description);
  if (mine && theirs && mine !== theirs) return `${mine}, not ${theirs}${vs}`;
  return `at ${shape.route.replace(/\{\}/g, '…')}, not ${sibling.route.replace(/\{\}/g, '…')}${vs}`;
}

/** What a description says the tool does, without the vendor, asides and details. */
function firstClause(description: string): string {
  return (
    description
      .slice(description.indexOf(':') + 1)
      .replace(/,?\s*\b(e\.g|i\.e)\.[^.;:]*/g, '')
      .split(/[.;:]/)[0] ?? ''
  )
    .replace(/\s*\([^)]*\)/g, '')
    .trim();
}

/**
 * The note of tool `i` among `tools` (`sameSet` the indexes of the tools of its tool set); none
 * for a tool alone in its tool set. One tool at a time: a search needs the notes of the few it
 * returns, and comparing every pair of a catalog of a thousand tools up front costs seconds.
 */
export function siblingNote(
  tools: readonly SearchableTool[],
  shapes: readonly ToolShape[],
  i: number,
  sameSet: readonly number[],
): string | undefined {
  const tool = tools[i]!;
  const shape = shapes[i]!;
  let best = -1;
  let score = -1;
  for (const j of sameSet) {
    if (j === i) continue;
    const o = shapes[j]!;
    // The easiest to confuse: the same operation on a related object, then the same object.
    const sameOp = o.op === shape.op;
    const heads = overlap(shape.head, o.head);
    const s =
      (sameOp ? 1 : 0) +
      2 * heads +
      sharedPrefix(shape.route, o.route) +
      0.5 * overlap(shape.parents, o.parents) +
      (sameOp && related(shape, o) ? 2.5 : 0) +
      (sameOp && heads > 0.5 ? 1 : 0);
    if (s > score) {
      score = s;
      best = j;
    }
  }
  return best >= 0 ? contrast(tool, shape, tools[best]!, shapes[best]!, shortName(tools[best]!)) : undefined;
}
