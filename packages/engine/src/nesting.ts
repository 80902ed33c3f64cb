import { ToolError } from '@toolhost/core';

/**
 * Levels of nesting a parameter's value may have. Building the request serializes it
 * recursively (JSON.stringify), which overflows the stack a few thousand levels down: a value
 * nested that deep (or a cycle, given in process) failed the call as an internal error. Real
 * request bodies nest a handful of levels; MCP refuses params deeper than this too.
 */
export const MAX_VALUE_DEPTH = 100;

/** Whether `value` nests deeper than `limit` levels (a cycle does), found without recursion. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}

/** Refuses a parameter's value nested deeper than MAX_VALUE_DEPTH, naming the parameter. */
export function refuseTooDeep(name: string, value: unknown): void {
  if (nestsDeeperThan(value, MAX_VALUE_DEPTH)) throw tooDeep(name);
}

/** The refusal of parameter `name` nested past MAX_VALUE_DEPTH (or holding itself). */
export const tooDeep = (name: string) =>
  ToolError.invalidArgument(
    name,
    `Parameter '${name}' nests more than ${MAX_VALUE_DEPTH} levels deep (or refers to itself); expected at most ${MAX_VALUE_DEPTH}.`,
  );
