import type { ToolDeclaration } from '@toolhost/core';
import { createFieldBody, createTableBody, updateTableBody } from '../schemas/bases-schema.generated.js';
import { gridAuth } from './auth.js';
import { includeParam } from './bases.js';
import { baseId, idOf, pathId } from './params.js';

const VIEW = idOf('viw');
const VISIBLE_FIELD_IDS = ['visibleFieldIds'] as const;

const readSchema = gridAuth('schema.bases:read');
const writeSchema = gridAuth('schema.bases:write');
const readBases = gridAuth('workspacesAndBases:read');

export const schemaTools: ToolDeclaration[] = [
  {
    name: 'GetGridBaseSchema',
    description:
      "Airtable: list a base's tables with their fields (columns: names, types, options) and views: the base schema.",
    method: 'GET',
    path: '/meta/bases/{baseId}/tables',
    auth: readSchema,
    params: [baseId('grid_base_id'), includeParam('fields_to_include', VISIBLE_FIELD_IDS)],
  },
  {
    name: 'CreateGridTable',
    description: 'Airtable: create a table in a base, with its fields.',
    method: 'POST',
    path: '/meta/bases/{baseId}/tables',
    auth: writeSchema,
    body: { kind: 'mode', schema: createTableBody },
    params: [baseId('grid_base_id', 'required')],
  },
  {
    name: 'UpdateGridTable',
    description: 'Airtable: rename a table or change its description or date dependencies.',
    method: 'PATCH',
    path: '/meta/bases/{baseId}/tables/{tableIdOrName}',
    auth: writeSchema,
    hints: { idempotent: true },
    body: { kind: 'mode', schema: updateTableBody },
    params: [
      baseId('grid_base_id', 'required'),
      pathId('table_id_or_name', 'tableIdOrName', 'tbl… or name', 'required'),
    ],
  },
  {
    name: 'CreateGridField',
    description: 'Airtable: create a field (column) in a table.',
    method: 'POST',
    path: '/meta/bases/{baseId}/tables/{tableId}/fields',
    auth: writeSchema,
    body: { kind: 'mode', schema: createFieldBody },
    params: [baseId('grid_base_id', 'required'), pathId('table_id', 'tableId', idOf('tbl'), 'required')],
  },
  {
    name: 'UpdateGridFieldDetails',
    description: 'Airtable: rename a field (column) and/or change its description.',
    method: 'PATCH',
    path: '/meta/bases/{baseId}/tables/{tableId}/fields/{columnId}',
    auth: writeSchema,
    hints: { idempotent: true },
    body: { kind: 'fields' },
    // The spec: a new name is needed when no new description is given.
    requiresAnyOf: [['new_field_name', 'new_field_description']],
    params: [
      baseId('grid_base_id'),
      pathId('grid_table_id', 'tableId', idOf('tbl')),
      pathId('field_column_id', 'columnId', idOf('fld')),
      {
        name: 'new_field_description',
        in: 'body',
        bodyPath: 'description',
        schema: { type: 'string', maxLength: 20000 },
        description: '',
      },
      {
        name: 'new_field_name',
        in: 'body',
        bodyPath: 'name',
        schema: { type: 'string' },
        description: '',
      },
    ],
  },
  {
    name: 'ListGridBaseViews',
    description: 'Airtable: list all views of a base.',
    method: 'GET',
    path: '/meta/bases/{baseId}/views',
    auth: readBases,
    params: [baseId('grid_base_id'), includeParam('fields_to_include', VISIBLE_FIELD_IDS)],
  },
  {
    name: 'DeleteGridView',
    description: 'Airtable: delete a view.',
    method: 'DELETE',
    path: '/meta/bases/{baseId}/views/{viewId}',
    auth: gridAuth('workspacesAndBases:write'),
    params: [baseId('grid_base_id'), pathId('view_identifier', 'viewId', VIEW)],
  },
  {
    name: 'GetGridViewMetadata',
    description: "Airtable: a view's metadata (name, type, visible fields).",
    method: 'GET',
    path: '/meta/bases/{baseId}/views/{viewId}',
    auth: readBases,
    params: [
      baseId('base_identifier'),
      pathId('view_identifier', 'viewId', VIEW),
      includeParam('include_fields', VISIBLE_FIELD_IDS),
    ],
  },
];
