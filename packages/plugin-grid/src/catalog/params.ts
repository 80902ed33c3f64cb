import type { ParamDeclaration } from '@toolhost/core';

/**
 * A path id under its API name: required, or `mode: 'x'` (execute only) on mode tools. No
 * `minLength`: the engine refuses empty and dot-segment path values with a clear error.
 * Descriptions are terse fragments without a full stop; an execute-only one gets it here,
 * before the schema appends " Required for execute.", unless it ends in a prefix's `…`.
 */
export function pathId(name: string, as: string, description: string, mode?: 'x'): ParamDeclaration {
  return {
    name,
    in: 'path',
    as,
    ...(mode ? { mode } : { required: true }),
    schema: { type: 'string' },
    description: mode && description && !description.endsWith('…') ? `${description}.` : description,
  };
}

/** An Airtable id by its prefix (`app…`), worded alike across the catalog. */
export function idOf(prefix: string): string {
  return `${prefix}…`;
}

/** Every base id is declared `as: 'baseId'`, the key the tool set paces requests by (5/s per base). */
export function baseId(name: string, mode?: 'x'): ParamDeclaration {
  return pathId(name, 'baseId', idOf('app'), mode);
}

/** A user (usr…) or group (ugp…) collaborator in the path. */
export function collaboratorId(name: string, mode?: 'x'): ParamDeclaration {
  return pathId(name, 'userOrGroupId', 'usr… or ugp…', mode);
}
