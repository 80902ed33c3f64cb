import { bodyParam, type JsonSchema, type ParamDeclaration, pathParam, queryParam } from '@toolhost/core';

// The parameters the campaign tools share: the campaign GUID as each tool names it, paging,
// the report period and the asset path, each with the wire name HubSpot expects.

const uuid: JsonSchema = { type: 'string', format: 'uuid' };
// Empty path values are refused by the engine, so plain strings suffice.
export const str: JsonSchema = { type: 'string' };
export const date: JsonSchema = { type: 'string', format: 'date' };

/**
 * The campaign GUID in the path. The spec names it differently per tool and marks it as a
 * UUID on some tools only; those get the uuid format, the others any non-empty string.
 * Only a name that says neither GUID nor (by its format) UUID is described.
 */
export function campaign(name: string, isUuid: boolean): ParamDeclaration {
  return {
    name,
    in: 'path',
    apiName: 'campaignGuid',
    required: true,
    schema: isUuid ? uuid : str,
    description: isUuid || name.includes('guid') ? '' : 'Campaign GUID.',
  };
}

export function pathId(name: string, apiName: string): ParamDeclaration {
  return pathParam(name, apiName, '', { schema: { type: 'integer' } });
}

export function query(name: string, apiName: string, schema: JsonSchema, description = ''): ParamDeclaration {
  return queryParam(name, description, schema, apiName !== name ? { apiName } : {});
}

export function field(
  name: string,
  bodyPath: string,
  schema: JsonSchema,
  description = '',
  required = true,
): ParamDeclaration {
  return bodyParam(name, description, schema, {
    ...(bodyPath !== name ? { bodyPath } : {}),
    ...(required ? { required } : {}),
  });
}

// The spec: an empty list gives an empty properties map, so [] is sent as `properties=`
// rather than left out (which would return the default properties).
export const properties = (name: string): ParamDeclaration => ({
  ...query(name, 'properties', { type: 'array', items: { type: 'string' } }),
  sendEmptyArray: true,
});

export const cursor = query('pagination_cursor', 'after', { type: 'string' }, 'paging.next.after.');

// Report period: the spec documents 2006-01-01 and today as the defaults, so they are sent.
export const reportStart = (name: string): ParamDeclaration => ({
  ...query(name, 'startDate', { ...date, default: '2006-01-01' }),
  sendDefault: true,
});
export const reportEnd = (name: string): ParamDeclaration => ({
  ...query(name, 'endDate', date, 'Default today.'),
  dynamicDefault: 'today',
});

const assetTypes: JsonSchema = { type: 'string', enum: ['FORM', 'OBJECT_LIST', 'EXTERNAL_WEB_URL'] };
export const assetParams: ParamDeclaration[] = [
  { name: 'asset_id', in: 'path', apiName: 'assetId', required: true, schema: str, description: '' },
  {
    name: 'asset_type',
    in: 'path',
    apiName: 'assetType',
    required: true,
    schema: assetTypes,
    description: '',
  },
  campaign('campaign_unique_identifier', true),
];
