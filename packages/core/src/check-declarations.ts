import { WHOLE_BODY } from './build-request.js';
import type { ToolDeclaration } from './tool-declaration.js';

/**
 * Catches catalog mistakes when a plugin is defined rather than when a user first calls the
 * broken tool: placeholders without a path parameter, duplicates, unknown servers.
 */
export function checkDeclarations(
  toolSet: string,
  tools: readonly ToolDeclaration[],
  servers: Readonly<Record<string, string>>,
): void {
  const problems: string[] = [];
  const names = new Set<string>();
  if (!servers.default) problems.push(`tool set ${toolSet} has no 'default' server`);
  for (const t of tools) {
    const id = `${t.toolSet}.${t.name}`;
    if (t.toolSet !== toolSet) problems.push(`${id} belongs to another tool set`);
    if (names.has(t.name)) problems.push(`${id} is declared twice`);
    names.add(t.name);
    if (!servers[t.server ?? 'default']) problems.push(`${id} uses unknown server '${t.server}'`);
    const placeholders = [...t.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    const pathParams = (t.params ?? []).filter((p) => p.in === 'path').map((p) => p.as ?? p.name);
    for (const ph of placeholders)
      if (!pathParams.includes(ph!)) problems.push(`${id}: no parameter fills {${ph}}`);
    for (const pp of pathParams)
      if (!placeholders.includes(pp)) problems.push(`${id}: path parameter ${pp} is not in the path`);
    const paramNames = new Set<string>();
    for (const p of t.params ?? []) {
      if (paramNames.has(p.name)) problems.push(`${id}: parameter ${p.name} declared twice`);
      paramNames.add(p.name);
      if (p.decode && p.schema.type !== 'string')
        problems.push(`${id}: ${p.name} is decoded from text, so it must be a string`);
      if (p.in === 'body' && p.as === WHOLE_BODY && p.schema.type !== 'object')
        problems.push(`${id}: ${p.name} supplies the whole body, so it must be an object`);
      if (p.in === 'body' && t.body?.kind !== 'fields')
        problems.push(`${id}: body parameter ${p.name} needs body kind 'fields'`);
      if (p.mode && t.body?.kind !== 'mode')
        problems.push(`${id}: ${p.name} has a mode marker on a non-mode tool`);
    }
    for (const name of (t.requiresAnyOf ?? []).flat())
      if (!paramNames.has(name)) problems.push(`${id}: requiresAnyOf names unknown parameter ${name}`);
  }
  if (problems.length > 0) throw new Error(`Invalid tool declarations: ${problems.join('; ')}`);
}
