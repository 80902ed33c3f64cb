import type { ToolSetDefinition } from '@toolhost/core';
import picomatch from 'picomatch';
import type { HostConfig } from './host-config.js';
import { ConfigError } from './load-config.js';

/** Edit distance, for "did you mean": a misspelled tool set is usually one or two letters off. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

function suggestion(name: string, known: readonly string[]): string {
  const best = known
    .map((k) => ({ k, d: distance(name.toLowerCase(), k.toLowerCase()) }))
    .sort((x, y) => x.d - y.d)[0];
  return best && best.d <= Math.max(2, Math.floor(name.length / 4)) ? ` Did you mean ${best.k}?` : '';
}

/**
 * Settings that would silently do nothing are errors: a `toolSets` key no loaded plugin
 * provides (a misspelled name whose `baseUrl` would never apply, so calls go to the real
 * API), and an allow or deny glob that matches no tool. Each names the key and what is known.
 */
export function checkConfigAgainstCatalog(config: HostConfig, toolSets: readonly ToolSetDefinition[]): void {
  const known = toolSets.map((s) => s.toolSet).sort();
  const problems: string[] = [];
  for (const name of Object.keys(config.toolSets ?? {})) {
    if (!known.includes(name)) {
      problems.push(
        `toolSets.${name}: no loaded plugin provides a tool set of that name (loaded: ${known.join(', ') || 'none'}).${suggestion(name, known)}`,
      );
    }
  }
  for (const name of config.tools?.toolSets ?? []) {
    if (!known.includes(name)) {
      problems.push(
        `tools.toolSets: '${name}' is not a loaded tool set (loaded: ${known.join(', ') || 'none'}).${suggestion(name, known)}`,
      );
    }
  }
  const names = toolSets.flatMap((s) => s.tools.map((t) => `${s.toolSet}.${t.name}`));
  for (const key of ['allow', 'deny'] as const) {
    (config.tools?.[key] ?? []).forEach((glob, i) => {
      const matches = picomatch(glob);
      if (!names.some((n) => matches(n))) {
        problems.push(
          `tools.${key}[${i}]: '${glob}' matches no tool; tools are named <ToolSet>.<Tool> (tool sets: ${known.join(', ') || 'none'}).`,
        );
      }
    });
  }
  if (problems.length > 0) throw new ConfigError(problems.join(' '));
}
