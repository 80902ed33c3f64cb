import type { ToolDeclaration } from '@toolhost/core';
import { createFieldBody, createTableBody, updateTableBody } from '../schemas/bases-schema.generated.js';
import { gridAuth } from './auth.js';
import { includeParam, pathId } from './bases.js';

const toolSet = 'GridApi';

const BASE = 'Base id (app...).';
const VIEW = 'View id (viw...).';
const VISIBLE_FIELD_IDS = ['visibleFieldIds'] as const;

const readSchema = gridAuth('schema.bases:read');
const writeSchema = gridAuth('schema.bases:write');
const readBases = gridAuth('workspacesAndBases:read');

export const schemaTools: ToolDeclaration[] = [
  {
    toolSet,
    name: 'GetGridBaseSchema',
    description: 'Get the tables of a base with their fields and views.',
    method: 'GET',
    path: '/meta/bases/{baseId}/tables',
    auth: readSchema,
    params: [pathId('grid_base_id', 'baseId', BASE), includeParam('fields_to_include', VISIBLE_FIELD_IDS)],
  },
  {
    toolSet,
    name: 'CreateGridTable',
    description: 'Create a table with its fields in a base.',
    method: 'POST',
    path: '/meta/bases/{baseId}/tables',
    auth: writeSchema,
    body: { kind: 'mode', schema: createTableBody },
    params: [pathId('grid_base_id', 'baseId', BASE, 'x')],
  },
  {
    toolSet,
    name: 'UpdateGridTable',
    description: "Update a table's name, description or date dependency settings.",
    method: 'PATCH',
    path: '/meta/bases/{baseId}/tables/{tableIdOrName}',
    auth: writeSchema,
    hints: { idempotent: true },
    body: { kind: 'mode', schema: updateTableBody },
    params: [
      pathId('grid_base_id', 'baseId', BASE, 'x'),
      pathId('table_id_or_name', 'tableIdOrName', 'Table id (tbl..., preferred) or name.', 'x'),
    ],
  },
  {
    toolSet,
    name: 'CreateGridField',
    description: 'Create a field (column) in a table.',
    method: 'POST',
    path: '/meta/bases/{baseId}/tables/{tableId}/fields',
    auth: writeSchema,
    body: { kind: 'mode', schema: createFieldBody },
    params: [
      pathId('grid_base_id', 'baseId', BASE, 'x'),
      pathId('table_id', 'tableId', 'Table id (tbl...).', 'x'),
    ],
  },
  {
    toolSet,
    name: 'UpdateGridFieldDetails',
    description: 'Rename a field and/or change its description; give at least one of the two.',
    method: 'PATCH',
    path: '/meta/bases/{baseId}/tables/{tableId}/fields/{columnId}',
    auth: writeSchema,
    hints: { idempotent: true },
    body: { kind: 'fields' },
    // The spec: a new name is needed when no new description is given.
    requiresAnyOf: [['new_field_name', 'new_field_description']],
    params: [
      pathId('grid_base_id', 'baseId', BASE),
      pathId('grid_table_id', 'tableId', 'Table id (tbl...).'),
      pathId('field_column_id', 'columnId', 'Field id (fld...).'),
      {
        name: 'new_field_description',
        in: 'body',
        as: 'description',
        schema: { type: 'string', maxLength: 20000 },
        description: 'New description.',
      },
      {
        name: 'new_field_name',
        in: 'body',
        as: 'name',
        schema: { type: 'string' },
        description: 'New name.',
      },
    ],
  },
  {
    toolSet,
    name: 'ListGridBaseViews',
    description: 'List the views of a base.',
    method: 'GET',
    path: '/meta/bases/{baseId}/views',
    auth: readBases,
    params: [pathId('grid_base_id', 'baseId', BASE), includeParam('fields_to_include', VISIBLE_FIELD_IDS)],
  },
  {
    toolSet,
    name: 'DeleteGridView',
    description: 'Delete a view.',
    method: 'DELETE',
    path: '/meta/bases/{baseId}/views/{viewId}',
    auth: gridAuth('workspacesAndBases:write'),
    params: [pathId('grid_base_id', 'baseId', BASE), pathId('view_identifier', 'viewId', VIEW)],
  },
  {
    toolSet,
    name: 'GetGridViewMetadata',
    description: 'Get the metadata of a view.',
    method: 'GET',
    path: '/meta/bases/{baseId}/views/{viewId}',
    auth: readBases,
    params: [
      pathId('base_identifier', 'baseId', BASE),
      pathId('view_identifier', 'viewId', VIEW),
      includeParam('include_fields', VISIBLE_FIELD_IDS),
    ],
  },
];
