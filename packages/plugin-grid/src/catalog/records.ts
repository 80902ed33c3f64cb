import type { ToolDeclaration } from '@toolhost/core';
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
// Every base id is sent as `baseId`, the key the tool set paces requests by (5/s per base).
import { baseId, pathId } from './params.js';
import {
  commentId,
  dataTableId,
  enterpriseAccountId,
  paginationOffset,
  recordId,
  returnFieldsByFieldId,
  table,
} from './record-params.js';

const recordsRead = gridAuth('data.records:read');
const recordsWrite = gridAuth('data.records:write');
const commentsRead = gridAuth('data.recordComments:read');
const commentsWrite = gridAuth('data.recordComments:write');
const bulkRead = gridAuth('hyperDB.records:read');
const bulkWrite = gridAuth('hyperDB.records:write');

const id = { type: 'string', minLength: 1 } as const;
const cellFormat = { type: 'string', enum: ['json', 'string'] } as const;

const recordTableTools: ToolDeclaration[] = [
  {
    name: 'UploadAttachmentToGrid',
    description: "Airtable: upload a file (base64) into a record's attachment field.",
    method: 'POST',
    path: '/{baseId}/{recordId}/{attachmentFieldIdOrName}/uploadAttachment',
    server: 'content',
    auth: recordsWrite,
    body: { kind: 'mode', schema: uploadAttachmentBody },
    params: [
      baseId('grid_base_id', 'required'),
      recordId('grid_record_id', 'required'),
      pathId('attachment_field_id_or_name', 'attachmentFieldIdOrName', 'fld… or name', 'required'),
    ],
  },
  {
    name: 'DeleteMultipleRecords',
    description: 'Airtable: delete several records (rows) of a table by id.',
    method: 'DELETE',
    path: '/{baseId}/{tableIdOrName}',
    auth: recordsWrite,
    params: [
      baseId('base_id'),
      table('table_identifier'),
      {
        name: 'record_ids_to_delete',
        in: 'query',
        apiName: 'records',
        style: 'brackets',
        schema: { type: 'array', items: id },
        description: 'rec…',
      },
    ],
  },
  {
    name: 'ListGridRecords',
    // The spec takes field names as one comma-separated string and the sort as JSON text; the
    // API wants repeated fields[] keys and sort[n][field] / sort[n][direction], so both are
    // decoded before the query is written.
    description:
      'Airtable: list records (rows) of a table, with filter formula, sort, view, fields and paging.',
    method: 'GET',
    path: '/{baseId}/{tableIdOrName}',
    auth: recordsRead,
    params: [
      baseId('base_id'),
      table('table_id_or_name'),
      {
        name: 'cell_format_method',
        in: 'query',
        apiName: 'cellFormat',
        schema: cellFormat,
        description: "'string' needs time zone and locale",
      },
      {
        name: 'filter_by_formula',
        in: 'query',
        apiName: 'filterByFormula',
        schema: { type: 'string' },
        description: 'Keeps records where truthy',
      },
      {
        name: 'maximum_records',
        in: 'query',
        apiName: 'maxRecords',
        schema: { type: 'integer', minimum: 1 },
        description: 'Across all pages',
      },
      {
        name: 'output_time_zone',
        in: 'query',
        apiName: 'timeZone',
        schema: { type: 'string' },
        description: 'IANA, e.g. Europe/Paris',
      },
      {
        name: 'page_size',
        in: 'query',
        apiName: 'pageSize',
        schema: { type: 'integer', minimum: 1, maximum: 100, default: 100 },
        description: '',
      },
      paginationOffset(),
      {
        name: 'record_metadata_fields',
        in: 'query',
        apiName: 'recordMetadata',
        style: 'brackets',
        schema: { type: 'array', items: { type: 'string', enum: ['commentCount'] } },
        description: '',
      },
      returnFieldsByFieldId(),
      {
        name: 'sort_order',
        in: 'query',
        apiName: 'sort',
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
        description: 'JSON [{"field":"Name","direction":"desc"}]',
      },
      {
        name: 'specific_fields',
        in: 'query',
        apiName: 'fields',
        style: 'brackets',
        schema: { type: 'string' },
        decode: { kind: 'split', separator: ',' },
        description: 'Comma-separated field names',
      },
      {
        name: 'specified_view',
        in: 'query',
        apiName: 'view',
        schema: { type: 'string' },
        description: 'Name or viw…; applies its filter, order',
      },
      {
        name: 'user_locale',
        in: 'query',
        apiName: 'userLocale',
        schema: { type: 'string' },
        description: 'For string cells, e.g. en-gb',
      },
    ],
  },
  {
    name: 'UpdateGridRecords',
    description: 'Airtable: update several records (rows), only the fields given; can upsert.',
    method: 'PATCH',
    path: '/{baseId}/{tableIdOrName}',
    auth: recordsWrite,
    body: { kind: 'mode', schema: updateRecordsBody },
    params: [baseId('grid_base_id', 'required'), table('grid_table_id_or_name', 'required')],
  },
  {
    name: 'CreateGridRecords',
    description: 'Airtable: create records (rows) in a table: one (fields) or several (records).',
    method: 'POST',
    path: '/{baseId}/{tableIdOrName}',
    auth: recordsWrite,
    body: { kind: 'mode', schema: createRecordsBody },
    params: [baseId('base_id', 'required'), table('table_id_or_name', 'required')],
  },
  {
    name: 'BulkUpdateGrid',
    description: 'Airtable: replace several records (rows); omitted fields are cleared; can upsert.',
    method: 'PUT',
    path: '/{baseId}/{tableIdOrName}',
    auth: recordsWrite,
    body: { kind: 'mode', schema: replaceRecordsBody },
    params: [baseId('base_id', 'required'), table('table_identifier', 'required')],
  },
  {
    name: 'DeleteGridRecord',
    description: 'Airtable: delete one record (row) from a table.',
    method: 'DELETE',
    path: '/{baseId}/{tableIdOrName}/{recordId}',
    auth: recordsWrite,
    params: [baseId('grid_base_id'), recordId('record_id'), table('table_identifier')],
  },
  {
    name: 'GridGetRecord',
    description: 'Airtable: get one record (row) of a table by id.',
    method: 'GET',
    path: '/{baseId}/{tableIdOrName}/{recordId}',
    auth: recordsRead,
    params: [
      baseId('grid_base_id'),
      recordId('record_id'),
      table('table_identifier'),
      {
        name: 'cell_format',
        in: 'query',
        apiName: 'cellFormat',
        schema: cellFormat,
        description: 'Raw values or as displayed',
      },
      returnFieldsByFieldId(),
    ],
  },
  {
    name: 'UpdateGridRecord',
    description: 'Airtable: update one record (row) of a table, only the fields given.',
    method: 'PATCH',
    path: '/{baseId}/{tableIdOrName}/{recordId}',
    auth: recordsWrite,
    body: { kind: 'mode', schema: updateRecordBody },
    params: [
      baseId('base_id', 'required'),
      table('table_id_or_name', 'required'),
      recordId('grid_record_id', 'required'),
    ],
  },
  {
    name: 'ModifyGridEntry',
    description: "Airtable: replace one record's (row's) fields; omitted fields are cleared.",
    method: 'PUT',
    path: '/{baseId}/{tableIdOrName}/{recordId}',
    auth: recordsWrite,
    body: { kind: 'mode', schema: replaceRecordBody },
    params: [
      baseId('base_id', 'required'),
      table('table_identifier', 'required'),
      recordId('record_identifier', 'required'),
    ],
  },
];

const commentTools: ToolDeclaration[] = [
  {
    name: 'GetRecordComments',
    description: 'Airtable: list the comments on a record (row).',
    method: 'GET',
    path: '/{baseId}/{tableIdOrName}/{recordId}/comments',
    auth: commentsRead,
    params: [
      baseId('base_id'),
      recordId('record_id'),
      table('table_identifier'),
      paginationOffset(),
      {
        name: 'results_page_size',
        in: 'query',
        apiName: 'pageSize',
        schema: { type: 'integer', minimum: 1 },
        description: '',
      },
    ],
  },
  {
    name: 'AddRecordComment',
    description: 'Airtable: comment on a record (row), or reply via parentCommentId.',
    method: 'POST',
    path: '/{baseId}/{tableIdOrName}/{recordId}/comments',
    auth: commentsWrite,
    body: { kind: 'mode', schema: createCommentBody },
    params: [
      baseId('base_identifier', 'required'),
      table('table_identifier', 'required'),
      recordId('record_identifier', 'required'),
    ],
  },
  {
    name: 'DeleteCommentFromRecord',
    description: 'Airtable: delete a comment on a record.',
    method: 'DELETE',
    path: '/{baseId}/{tableIdOrName}/{recordId}/comments/{rowCommentId}',
    auth: commentsWrite,
    params: [
      baseId('grid_base_id'),
      commentId('comment_id_to_delete'),
      recordId('record_id'),
      table('table_id_or_name'),
    ],
  },
  {
    name: 'UpdateRecordComment',
    description: "Airtable: edit a comment's text on a record (own comments only).",
    method: 'PATCH',
    path: '/{baseId}/{tableIdOrName}/{recordId}/comments/{rowCommentId}',
    auth: commentsWrite,
    body: { kind: 'mode', schema: updateCommentBody },
    params: [
      baseId('base_identifier', 'required'),
      table('table_id_or_name', 'required'),
      recordId('record_id', 'required'),
      commentId('comment_id', 'required'),
    ],
  },
];

const bulkTableTools: ToolDeclaration[] = [
  {
    name: 'DeleteRecordsByPrimaryKeys',
    description: 'Airtable enterprise HyperDB table: delete records by primary key.',
    method: 'POST',
    path: '/{enterpriseAccountId}/{dataTableId}/deleteRecords',
    auth: bulkWrite,
    hints: { destructive: true },
    body: { kind: 'mode', schema: deleteBulkRecordsBody },
    params: [enterpriseAccountId('required'), dataTableId('required')],
  },
  {
    name: 'ReadBulkTableRecords',
    description: 'Airtable enterprise HyperDB table: read records by primary key or page.',
    method: 'POST',
    path: '/{enterpriseAccountId}/{dataTableId}/getRecords',
    auth: bulkRead,
    hints: { readOnly: true },
    body: { kind: 'fields' },
    params: [
      dataTableId(),
      enterpriseAccountId(),
      {
        name: 'fields_to_retrieve',
        in: 'body',
        bodyPath: 'fields',
        schema: { type: 'array', items: id },
        description: '',
      },
      {
        name: 'maximum_records_to_retrieve',
        in: 'body',
        bodyPath: 'maxRecords',
        schema: { type: 'integer', minimum: 1 },
        description: '',
      },
      {
        name: 'pagination_cursor',
        in: 'body',
        bodyPath: 'cursor',
        schema: { type: 'string' },
        description: '',
      },
      {
        name: 'primary_keys_to_retrieve',
        in: 'body',
        bodyPath: 'primaryKeys',
        schema: { type: 'array', items: { type: 'string' } },
        description: '',
      },
    ],
  },
  {
    name: 'UpsertGridRecords',
    description: 'Airtable enterprise HyperDB table: upsert records by primary key.',
    method: 'PUT',
    path: '/{enterpriseAccountId}/{dataTableId}/upsertRecords',
    auth: bulkWrite,
    body: { kind: 'mode', schema: upsertBulkRecordsBody },
    params: [enterpriseAccountId('required'), dataTableId('required')],
  },
];

export const recordTools: ToolDeclaration[] = [...recordTableTools, ...commentTools, ...bulkTableTools];
