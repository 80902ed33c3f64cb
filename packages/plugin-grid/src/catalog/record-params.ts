import type { ExecuteOnly, ParamDeclaration } from '@toolhost/core';
import { idOf, pathId } from './params.js';

// The parameters the record, comment and bulk-record tools share (tables, records, comments,
// paging), each the wire name Airtable expects under the spec's own names.

export function table(name: string, executeOnly?: ExecuteOnly): ParamDeclaration {
  return pathId(name, 'tableIdOrName', 'tbl… or name', executeOnly);
}

export function recordId(name: string, executeOnly?: ExecuteOnly): ParamDeclaration {
  return pathId(name, 'recordId', idOf('rec'), executeOnly);
}

export function commentId(name: string, executeOnly?: ExecuteOnly): ParamDeclaration {
  return pathId(name, 'rowCommentId', '', executeOnly);
}

export function returnFieldsByFieldId(): ParamDeclaration {
  return {
    name: 'return_fields_by_field_id',
    in: 'query',
    apiName: 'returnFieldsByFieldId',
    schema: { type: 'boolean' },
    description: '',
  };
}

export function paginationOffset(): ParamDeclaration {
  return {
    name: 'pagination_offset',
    in: 'query',
    apiName: 'offset',
    schema: { type: 'string' },
    description: '',
  };
}

export function enterpriseAccountId(executeOnly?: ExecuteOnly): ParamDeclaration {
  return pathId('enterprise_account_id', 'enterpriseAccountId', '', executeOnly);
}

export function dataTableId(executeOnly?: ExecuteOnly): ParamDeclaration {
  return pathId('data_table_id', 'dataTableId', '', executeOnly);
}
