import type { ParamDeclaration, ToolDeclaration } from '@toolhost/core';
import {
  createCommentBody,
  createRecordsBody,
  deleteBulkRecordsBody,
  replaceRecordBody,
  replaceRecordsBody,
  updateCommentBody,
  updateRecordBody,
  updateRecordsBody,
  uploadAttachmentBody,
  upsertBulkRecordsBody,
} from '../schemas/workspaces-records.generated.js';
import { gridAuth } from './auth.js';

const toolSet = 'GridApi';
const recordsRead = gridAuth('data.records:read');
const recordsWrite = gridAuth('data.records:write');
const commentsRead = gridAuth('data.recordComments:read');
const commentsWrite = gridAuth('data.recordComments:write');
const bulkRead = gridAuth('hyperDB.records:read');
const bulkWrite = gridAuth('hyperDB.records:write');

const id = { type: 'string', minLength: 1 } as const;
const cellFormat = { type: 'string', enum: ['json', 'string'] } as const;

// Every base id is sent as `baseId`, the key the tool set paces requests by (5/s per base).
function baseId(name: string, opts: Partial<ParamDeclaration> = {}): ParamDeclaration {
  return { name, in: 'path', as: 'baseId', schema: id, description: 'Base id (app...).', ...opts };
}

function table(name: string, opts: Partial<ParamDeclaration> = {}): ParamDeclaration {
  return {
    name,
    in: 'path',
    as: 'tableIdOrName',
    schema: id,
    description: 'Table id (tbl...) or name.',
    ...opts,
  };
}

function recordId(name: string, opts: Partial<ParamDeclaration> = {}): ParamDeclaration {
  return { name, in: 'path', as: 'recordId', schema: id, description: 'Record id (rec...).', ...opts };
}

function commentId(name: string, opts: Partial<ParamDeclaration> = {}): ParamDeclaration {
  return { name, in: 'path', as: 'rowCommentId', schema: id, description: 'Comment id (com...).', ...opts };
}

function returnFieldsByFieldId(): ParamDeclaration {
  return {
    name: 'return_fields_by_field_id',
    in: 'query',
    as: 'returnFieldsByFieldId',
    schema: { type: 'boolean' },
    description: 'Key fields by id instead of name.',
  };
}

function paginationOffset(): ParamDeclaration {
  return {
    name: 'pagination_offset',
    in: 'query',
    as: 'offset',
    schema: { type: 'string' },
    description: 'offset of the previous page.',
  };
}

function enterpriseAccountId(opts: Partial<ParamDeclaration>): ParamDeclaration {
  return {
    name: 'enterprise_account_id',
    in: 'path',
    as: 'enterpriseAccountId',
    schema: id,
    description: 'Enterprise account id (ent...).',
    ...opts,
  };
}

function dataTableId(opts: Partial<ParamDeclaration>): ParamDeclaration {
  return {
    name: 'data_table_id',
    in: 'path',
    as: 'dataTableId',
    schema: id,
    description: 'Bulk table id (edt...).',
    ...opts,
  };
}

const recordTableTools: ToolDeclaration[] = [
  {
    toolSet,
    name: 'UploadAttachmentToGrid',
    description: "Upload a file (base64) into a record's attachment field.",
    method: 'POST',
    path: '/{baseId}/{recordId}/{attachmentFieldIdOrName}/uploadAttachment',
    server: 'content',
    auth: recordsWrite,
    body: { kind: 'mode', schema: uploadAttachmentBody },
    params: [
      baseId('grid_base_id', { mode: 'x' }),
      recordId('grid_record_id', { mode: 'x' }),
      {
        name: 'attachment_field_id_or_name',
        in: 'path',
        as: 'attachmentFieldIdOrName',
        mode: 'x',
        schema: id,
        description: 'Attachment field id (fld...) or name.',
      },
    ],
  },
  {
    toolSet,
    name: 'DeleteMultipleRecords',
    description: 'Delete several records of a table by id.',
    method: 'DELETE',
    path: '/{baseId}/{tableIdOrName}',
    auth: recordsWrite,
    params: [
      baseId('base_id', { required: true }),
      table('table_identifier', { required: true }),
      {
        name: 'record_ids_to_delete',
        in: 'query',
        as: 'records',
        style: 'brackets',
        schema: { type: 'array', items: id },
        description: 'Record ids (rec...).',
      },
    ],
  },
  {
    toolSet,
    name: 'ListGridRecords',
    // The spec takes field names as one comma-separated string and the sort as JSON text; the
    // API wants repeated fields[] keys and sort[n][field] / sort[n][direction], so both are
    // decoded before the query is written.
    description: 'List the records of a table, one page at a time.',
    method: 'GET',
    path: '/{baseId}/{tableIdOrName}',
    auth: recordsRead,
    params: [
      baseId('base_id', { required: true }),
      table('table_id_or_name', { required: true }),
      {
        name: 'cell_format_method',
        in: 'query',
        as: 'cellFormat',
        schema: cellFormat,
        description: "'string' needs time zone and locale.",
      },
      {
        name: 'filter_by_formula',
        in: 'query',
        as: 'filterByFormula',
        schema: { type: 'string' },
        description: 'Formula; keeps records where truthy.',
      },
      {
        name: 'maximum_records',
        in: 'query',
        as: 'maxRecords',
        schema: { type: 'integer', minimum: 1 },
        description: 'Most records over all pages.',
      },
      {
        name: 'output_time_zone',
        in: 'query',
        as: 'timeZone',
        schema: { type: 'string' },
        description: 'IANA time zone, e.g. Europe/Paris.',
      },
      {
        name: 'page_size',
        in: 'query',
        as: 'pageSize',
        schema: { type: 'integer', minimum: 1, maximum: 100, default: 100 },
        description: 'Records per page.',
      },
      paginationOffset(),
      {
        name: 'record_metadata_fields',
        in: 'query',
        as: 'recordMetadata',
        style: 'brackets',
        schema: { type: 'array', items: { type: 'string', enum: ['commentCount'] } },
        description: 'Extra metadata per record.',
      },
      returnFieldsByFieldId(),
      {
        name: 'sort_order',
        in: 'query',
        as: 'sort',
        style: 'deepObject',
        schema: { type: 'string' },
        decode: {
          kind: 'json',
          schema: {
            type: 'array',
            items: {
              type: 'object',
              properties: { field: id, direction: { type: 'string', enum: ['asc', 'desc'] } },
              required: ['field'],
              additionalProperties: false,
            },
          },
        },
        description: 'JSON [{"field":"Name","direction":"desc"}].',
      },
      {
        name: 'specific_fields',
        in: 'query',
        as: 'fields',
        style: 'brackets',
        schema: { type: 'string' },
        decode: { kind: 'split', separator: ',' },
        description: 'Comma-separated field names; all when omitted.',
      },
      {
        name: 'specified_view',
        in: 'query',
        as: 'view',
        schema: { type: 'string' },
        description: 'View name or id; its filter and order.',
      },
      {
        name: 'user_locale',
        in: 'query',
        as: 'userLocale',
        schema: { type: 'string' },
        description: 'Locale for string cells, e.g. en-gb.',
      },
    ],
  },
  {
    toolSet,
    name: 'UpdateGridRecords',
    description: 'Update several records, changing only the fields given; can upsert.',
    method: 'PATCH',
    path: '/{baseId}/{tableIdOrName}',
    auth: recordsWrite,
    body: { kind: 'mode', schema: updateRecordsBody },
    params: [baseId('grid_base_id', { mode: 'x' }), table('grid_table_id_or_name', { mode: 'x' })],
  },
  {
    toolSet,
    name: 'CreateGridRecords',
    description: 'Create one record (fields) or several (records) in a table.',
    method: 'POST',
    path: '/{baseId}/{tableIdOrName}',
    auth: recordsWrite,
    body: { kind: 'mode', schema: createRecordsBody },
    params: [baseId('base_id', { mode: 'x' }), table('table_id_or_name', { mode: 'x' })],
  },
  {
    toolSet,
    name: 'BulkUpdateGrid',
    description: 'Replace several records (fields left out are cleared); can upsert.',
    method: 'PUT',
    path: '/{baseId}/{tableIdOrName}',
    auth: recordsWrite,
    body: { kind: 'mode', schema: replaceRecordsBody },
    params: [baseId('base_id', { mode: 'x' }), table('table_identifier', { mode: 'x' })],
  },
  {
    toolSet,
    name: 'DeleteGridRecord',
    description: 'Delete one record.',
    method: 'DELETE',
    path: '/{baseId}/{tableIdOrName}/{recordId}',
    auth: recordsWrite,
    params: [
      baseId('grid_base_id', { required: true }),
      recordId('record_id', { required: true }),
      table('table_identifier', { required: true }),
    ],
  },
  {
    toolSet,
    name: 'GridGetRecord',
    description: 'Get one record by id.',
    method: 'GET',
    path: '/{baseId}/{tableIdOrName}/{recordId}',
    auth: recordsRead,
    params: [
      baseId('grid_base_id', { required: true }),
      recordId('record_id', { required: true }),
      table('table_identifier', { required: true }),
      {
        name: 'cell_format',
        in: 'query',
        as: 'cellFormat',
        schema: cellFormat,
        description: 'Raw values or as displayed.',
      },
      returnFieldsByFieldId(),
    ],
  },
  {
    toolSet,
    name: 'UpdateGridRecord',
    description: 'Update one record, changing only the fields given.',
    method: 'PATCH',
    path: '/{baseId}/{tableIdOrName}/{recordId}',
    auth: recordsWrite,
    body: { kind: 'mode', schema: updateRecordBody },
    params: [
      baseId('base_id', { mode: 'x' }),
      table('table_id_or_name', { mode: 'x' }),
      recordId('grid_record_id', { mode: 'x' }),
    ],
  },
  {
    toolSet,
    name: 'ModifyGridEntry',
    description: "Replace one record's fields (fields left out are cleared).",
    method: 'PUT',
    path: '/{baseId}/{tableIdOrName}/{recordId}',
    auth: recordsWrite,
    body: { kind: 'mode', schema: replaceRecordBody },
    params: [
      baseId('base_id', { mode: 'x' }),
      table('table_identifier', { mode: 'x' }),
      recordId('record_identifier', { mode: 'x' }),
    ],
  },
];

const commentTools: ToolDeclaration[] = [
  {
    toolSet,
    name: 'GetRecordComments',
    description: 'List the comments on a record, one page at a time.',
    method: 'GET',
    path: '/{baseId}/{tableIdOrName}/{recordId}/comments',
    auth: commentsRead,
    params: [
      baseId('base_id', { required: true }),
      recordId('record_id', { required: true }),
      table('table_identifier', { required: true }),
      paginationOffset(),
      {
        name: 'results_page_size',
        in: 'query',
        as: 'pageSize',
        schema: { type: 'integer', minimum: 1 },
        description: 'Comments per page.',
      },
    ],
  },
  {
    toolSet,
    name: 'AddRecordComment',
    description: 'Comment on a record, or reply to a comment (parentCommentId).',
    method: 'POST',
    path: '/{baseId}/{tableIdOrName}/{recordId}/comments',
    auth: commentsWrite,
    body: { kind: 'mode', schema: createCommentBody },
    params: [
      baseId('base_identifier', { mode: 'x' }),
      table('table_identifier', { mode: 'x' }),
      recordId('record_identifier', { mode: 'x' }),
    ],
  },
  {
    toolSet,
    name: 'DeleteCommentFromRecord',
    description: 'Delete a comment from a record.',
    method: 'DELETE',
    path: '/{baseId}/{tableIdOrName}/{recordId}/comments/{rowCommentId}',
    auth: commentsWrite,
    params: [
      baseId('grid_base_id', { required: true }),
      commentId('comment_id_to_delete', { required: true }),
      recordId('record_id', { required: true }),
      table('table_id_or_name', { required: true }),
    ],
  },
  {
    toolSet,
    name: 'UpdateRecordComment',
    description: 'Change the text of a comment the authorized user wrote.',
    method: 'PATCH',
    path: '/{baseId}/{tableIdOrName}/{recordId}/comments/{rowCommentId}',
    auth: commentsWrite,
    body: { kind: 'mode', schema: updateCommentBody },
    params: [
      baseId('base_identifier', { mode: 'x' }),
      table('table_id_or_name', { mode: 'x' }),
      recordId('record_id', { mode: 'x' }),
      commentId('comment_id', { mode: 'x' }),
    ],
  },
];

const bulkTableTools: ToolDeclaration[] = [
  {
    toolSet,
    name: 'DeleteRecordsByPrimaryKeys',
    description: 'Delete records of an enterprise bulk table by primary key.',
    method: 'POST',
    path: '/{enterpriseAccountId}/{dataTableId}/deleteRecords',
    auth: bulkWrite,
    hints: { destructive: true },
    body: { kind: 'mode', schema: deleteBulkRecordsBody },
    params: [enterpriseAccountId({ mode: 'x' }), dataTableId({ mode: 'x' })],
  },
  {
    toolSet,
    name: 'ReadBulkTableRecords',
    description: 'Read records of an enterprise bulk table, by primary key or page by page.',
    method: 'POST',
    path: '/{enterpriseAccountId}/{dataTableId}/getRecords',
    auth: bulkRead,
    hints: { readOnly: true },
    body: { kind: 'fields' },
    params: [
      dataTableId({ required: true }),
      enterpriseAccountId({ required: true }),
      {
        name: 'fields_to_retrieve',
        in: 'body',
        as: 'fields',
        schema: { type: 'array', items: id },
        description: 'Fields to return; all when omitted.',
      },
      {
        name: 'maximum_records_to_retrieve',
        in: 'body',
        as: 'maxRecords',
        schema: { type: 'integer', minimum: 1 },
        description: 'Most records to return.',
      },
      {
        name: 'pagination_cursor',
        in: 'body',
        as: 'cursor',
        schema: { type: 'string' },
        description: 'cursor of the previous page.',
      },
      {
        name: 'primary_keys_to_retrieve',
        in: 'body',
        as: 'primaryKeys',
        schema: { type: 'array', items: { type: 'string' } },
        description: 'Only records with these primary keys.',
      },
    ],
  },
  {
    toolSet,
    name: 'UpsertGridRecords',
    description: 'Create or update records of an enterprise bulk table by primary key.',
    method: 'PUT',
    path: '/{enterpriseAccountId}/{dataTableId}/upsertRecords',
    auth: bulkWrite,
    body: { kind: 'mode', schema: upsertBulkRecordsBody },
    params: [enterpriseAccountId({ mode: 'x' }), dataTableId({ mode: 'x' })],
  },
];

export const recordTools: ToolDeclaration[] = [...recordTableTools, ...commentTools, ...bulkTableTools];
