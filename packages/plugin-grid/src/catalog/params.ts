import { type ExecuteOnly, type ParamDeclaration, pathParam } from '@toolhost/core';

/**
 * A path id under its API name: required, or execute-only on mode tools. Descriptions are
 * terse fragments without a full stop; an execute-only one gets it here, before the schema
 * appends " Required for execute.", unless it ends in a prefix's `…`.
 */
export function pathId(
  name: string,
  apiName: string,
  description: string,
  executeOnly?: ExecuteOnly,
): ParamDeclaration {
  const text = executeOnly && description && !description.endsWith('…') ? `${description}.` : description;
  return pathParam(name, apiName, text, executeOnly ? { executeOnly } : {});
}

/** An Airtable id by its prefix (`app…`), worded alike across the catalog. */
export function idOf(prefix: string): string {
  return `${prefix}…`;
}

/** Every base id is declared with API name `baseId`, the key the tool set paces requests by (5/s per base). */
export function baseId(name: string, executeOnly?: ExecuteOnly): ParamDeclaration {
  return pathId(name, 'baseId', idOf('app'), executeOnly);
}

/** A user (usr…) or group (ugp…) collaborator in the path. */
export function collaboratorId(name: string, executeOnly?: ExecuteOnly): ParamDeclaration {
  return pathId(name, 'userOrGroupId', 'usr… or ugp…', executeOnly);
}

/** A query parameter under its API name. */
export function query(
  name: string,
  apiName: string,
  schema: ParamDeclaration['schema'],
  description: string,
): ParamDeclaration {
  return { name, in: 'query', ...(apiName !== name ? { apiName } : {}), schema, description };
}
