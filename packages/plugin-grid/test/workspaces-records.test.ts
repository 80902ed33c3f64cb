import { catalogSuite, executeArgs, type RequestCase } from '@toolhost/testing';
import { describe, expect, it } from 'vitest';
import { recordTools } from '../src/catalog/records.js';
import { workspaceTools } from '../src/catalog/workspaces.js';
import * as schemas from '../src/schemas/workspaces-records.generated.js';
import { suiteOptions } from './suite-options.js';

const WSP = 'wspA1b2C3d4E5f6G7';
const WSP2 = 'wspZ9y8X7w6V5u4T3';
const USR = 'usrM1n2B3v4C5x6Z7';
const INV = 'invQ1w2E3r4T5y6U7';
const BASE = 'appA1b2C3d4E5f6G7';
const TBL = 'tblK1l2M3n4O5p6Q7';
const REC = 'recR1s2T3u4V5w6X7';
const COM = 'comC1d2E3f4G5h6I7';
const ENT = 'entE1f2G3h4I5j6K7';
const EDT = 'edtD1e2F3g4H5i6J7';

const newWorkspace = { enterpriseAccountId: ENT, name: 'Ops' };
const collaborators = { collaborators: [{ user: { id: USR }, permissionLevel: 'edit' }] };
const permission = { permissionLevel: 'comment' };
const move = { baseId: BASE, targetWorkspaceId: WSP2, targetIndex: 0 };
const upload = { contentType: 'text/plain', file: 'aGVsbG8=', filename: 'hello.txt' };
const records = { records: [{ id: REC, fields: { Name: 'Ada' } }], typecast: true };
const upsert = { performUpsert: { fieldsToMergeOn: ['Email'] }, records: [{ fields: { Email: 'a@b.co' } }] };
const created = { records: [{ fields: { Name: 'Ada' } }, { fields: { Name: 'Grace' } }] };
const fields = { fields: { Name: 'Ada' } };
const reply = { text: 'Looks good', parentCommentId: COM };
const text = { text: 'Edited' };
const deleteKeys = { primaryKeysForDelete: ['k1', 'k2'] };
const bulkUpsert = { records: [{ primaryKey: 'k1', fields: { Score: 3, Label: 'x', Old: null } }] };

const cases: RequestCase[] = [
  // Workspaces
  {
    tool: 'CreateGridWorkspace',
    args: executeArgs(newWorkspace),
    method: 'POST',
    path: '/meta/workspaces',
    body: newWorkspace,
  },
  {
    tool: 'DeleteWorkspace',
    args: { workspace_id: WSP },
    method: 'DELETE',
    path: `/meta/workspaces/${WSP}`,
  },
  {
    tool: 'GetWorkspaceCollaborators',
    args: { workspace_identifier: WSP, include_additional_information: ['collaborators', 'inviteLinks'] },
    method: 'GET',
    path: `/meta/workspaces/${WSP}`,
    query: [
      ['include', 'collaborators'],
      ['include', 'inviteLinks'],
    ],
  },
  {
    tool: 'AddWorkspaceCollaborator',
    args: executeArgs(collaborators, { workspace_id: WSP }),
    method: 'POST',
    path: `/meta/workspaces/${WSP}/collaborators`,
    body: collaborators,
  },
  {
    tool: 'RemoveWorkspaceCollaborator',
    args: { collaborator_identifier: USR, workspace_id: WSP },
    method: 'DELETE',
    path: `/meta/workspaces/${WSP}/collaborators/${USR}`,
  },
  {
    tool: 'UpdateWorkspaceCollaboratorPermission',
    args: executeArgs(permission, { workspace_id: WSP, collaborator_id: USR }),
    method: 'PATCH',
    path: `/meta/workspaces/${WSP}/collaborators/${USR}`,
    body: permission,
  },
  {
    tool: 'DeleteWorkspaceInvite',
    args: { invite_id: INV, workspace_id: WSP },
    method: 'DELETE',
    path: `/meta/workspaces/${WSP}/invites/${INV}`,
  },
  {
    tool: 'MoveGridBase',
    args: executeArgs(move, { target_workspace_id: WSP }),
    method: 'POST',
    path: `/meta/workspaces/${WSP}/moveBase`,
    body: move,
  },
  {
    tool: 'UpdateWorkspaceRestrictions',
    args: {
      workspace_id: WSP,
      invite_creation_restriction: 'onlyOwners',
      share_creation_restriction: 'unrestricted',
    },
    method: 'POST',
    path: `/meta/workspaces/${WSP}/updateRestrictions`,
    body: { inviteCreationRestriction: 'onlyOwners', shareCreationRestriction: 'unrestricted' },
  },
  // Records and comments
  {
    tool: 'UploadAttachmentToGrid',
    args: executeArgs(upload, {
      grid_base_id: BASE,
      grid_record_id: REC,
      attachment_field_id_or_name: 'Files',
    }),
    method: 'POST',
    path: `/content/${BASE}/${REC}/Files/uploadAttachment`,
    body: upload,
  },
  {
    tool: 'DeleteMultipleRecords',
    args: { base_id: BASE, table_identifier: TBL, record_ids_to_delete: [REC, 'recB'] },
    method: 'DELETE',
    path: `/${BASE}/${TBL}`,
    query: [
      ['records[]', REC],
      ['records[]', 'recB'],
    ],
  },
  {
    tool: 'ListGridRecords',
    args: {
      base_id: BASE,
      table_id_or_name: 'My table',
      cell_format_method: 'string',
      filter_by_formula: "{Status} = 'Done'",
      maximum_records: 50,
      output_time_zone: 'Europe/Paris',
      page_size: 20,
      pagination_offset: 'itrX/recY',
      record_metadata_fields: ['commentCount'],
      return_fields_by_field_id: true,
      sort_order: '[{"field":"Name","direction":"desc"},{"field":"Age"}]',
      specific_fields: 'Name, Age years',
      specified_view: 'Grid view',
      user_locale: 'en-gb',
    },
    method: 'GET',
    path: `/${BASE}/My table`,
    query: [
      ['cellFormat', 'string'],
      ['filterByFormula', "{Status} = 'Done'"],
      ['maxRecords', '50'],
      ['timeZone', 'Europe/Paris'],
      ['pageSize', '20'],
      ['offset', 'itrX/recY'],
      ['recordMetadata[]', 'commentCount'],
      ['returnFieldsByFieldId', 'true'],
      ['sort[0][field]', 'Name'],
      ['sort[0][direction]', 'desc'],
      ['sort[1][field]', 'Age'],
      ['fields[]', 'Name'],
      ['fields[]', 'Age years'],
      ['view', 'Grid view'],
      ['userLocale', 'en-gb'],
    ],
  },
  {
    tool: 'UpdateGridRecords',
    args: executeArgs(records, { grid_base_id: BASE, grid_table_id_or_name: TBL }),
    method: 'PATCH',
    path: `/${BASE}/${TBL}`,
    body: records,
  },
  {
    tool: 'CreateGridRecords',
    args: executeArgs(created, { base_id: BASE, table_id_or_name: TBL }),
    method: 'POST',
    path: `/${BASE}/${TBL}`,
    body: created,
  },
  {
    tool: 'BulkUpdateGrid',
    args: executeArgs(upsert, { base_id: BASE, table_identifier: TBL }),
    method: 'PUT',
    path: `/${BASE}/${TBL}`,
    body: upsert,
  },
  {
    tool: 'DeleteGridRecord',
    args: { grid_base_id: BASE, record_id: REC, table_identifier: TBL },
    method: 'DELETE',
    path: `/${BASE}/${TBL}/${REC}`,
  },
  {
    tool: 'GridGetRecord',
    args: {
      grid_base_id: BASE,
      record_id: REC,
      table_identifier: TBL,
      cell_format: 'json',
      return_fields_by_field_id: false,
    },
    method: 'GET',
    path: `/${BASE}/${TBL}/${REC}`,
    query: [
      ['cellFormat', 'json'],
      ['returnFieldsByFieldId', 'false'],
    ],
  },
  {
    tool: 'UpdateGridRecord',
    args: executeArgs(fields, { base_id: BASE, table_id_or_name: TBL, grid_record_id: REC }),
    method: 'PATCH',
    path: `/${BASE}/${TBL}/${REC}`,
    body: fields,
  },
  {
    tool: 'ModifyGridEntry',
    args: executeArgs(fields, { base_id: BASE, table_identifier: TBL, record_identifier: REC }),
    method: 'PUT',
    path: `/${BASE}/${TBL}/${REC}`,
    body: fields,
  },
  {
    tool: 'GetRecordComments',
    args: {
      base_id: BASE,
      record_id: REC,
      table_identifier: TBL,
      pagination_offset: 'off1',
      results_page_size: 10,
    },
    method: 'GET',
    path: `/${BASE}/${TBL}/${REC}/comments`,
    query: [
      ['offset', 'off1'],
      ['pageSize', '10'],
    ],
  },
  {
    tool: 'AddRecordComment',
    args: executeArgs(reply, { base_identifier: BASE, table_identifier: TBL, record_identifier: REC }),
    method: 'POST',
    path: `/${BASE}/${TBL}/${REC}/comments`,
    body: reply,
  },
  {
    tool: 'DeleteCommentFromRecord',
    args: { grid_base_id: BASE, comment_id_to_delete: COM, record_id: REC, table_id_or_name: TBL },
    method: 'DELETE',
    path: `/${BASE}/${TBL}/${REC}/comments/${COM}`,
  },
  {
    tool: 'UpdateRecordComment',
    args: executeArgs(text, {
      base_identifier: BASE,
      table_id_or_name: TBL,
      record_id: REC,
      comment_id: COM,
    }),
    method: 'PATCH',
    path: `/${BASE}/${TBL}/${REC}/comments/${COM}`,
    body: text,
  },
  // Bulk-table records
  {
    tool: 'DeleteRecordsByPrimaryKeys',
    args: executeArgs(deleteKeys, { enterprise_account_id: ENT, data_table_id: EDT }),
    method: 'POST',
    path: `/${ENT}/${EDT}/deleteRecords`,
    body: deleteKeys,
  },
  {
    tool: 'ReadBulkTableRecords',
    args: {
      data_table_id: EDT,
      enterprise_account_id: ENT,
      fields_to_retrieve: ['Score'],
      maximum_records_to_retrieve: 25,
      pagination_cursor: 'cur1',
      primary_keys_to_retrieve: ['k1', 'k2'],
    },
    method: 'POST',
    path: `/${ENT}/${EDT}/getRecords`,
    body: { fields: ['Score'], maxRecords: 25, cursor: 'cur1', primaryKeys: ['k1', 'k2'] },
  },
  {
    tool: 'UpsertGridRecords',
    args: executeArgs(bulkUpsert, { enterprise_account_id: ENT, data_table_id: EDT }),
    method: 'PUT',
    path: `/${ENT}/${EDT}/upsertRecords`,
    body: bulkUpsert,
  },
];

const modeSchemas: Record<string, unknown> = {
  CreateGridWorkspace: schemas.createWorkspaceBody,
  AddWorkspaceCollaborator: schemas.addWorkspaceCollaboratorsBody,
  UpdateWorkspaceCollaboratorPermission: schemas.updateWorkspaceCollaboratorBody,
  MoveGridBase: schemas.moveBaseBody,
  UploadAttachmentToGrid: schemas.uploadAttachmentBody,
  UpdateGridRecords: schemas.updateRecordsBody,
  CreateGridRecords: schemas.createRecordsBody,
  BulkUpdateGrid: schemas.replaceRecordsBody,
  UpdateGridRecord: schemas.updateRecordBody,
  ModifyGridEntry: schemas.replaceRecordBody,
  AddRecordComment: schemas.createCommentBody,
  UpdateRecordComment: schemas.updateCommentBody,
  DeleteRecordsByPrimaryKeys: schemas.deleteBulkRecordsBody,
  UpsertGridRecords: schemas.upsertBulkRecordsBody,
};

const requiredParams: Record<string, string[]> = {
  DeleteWorkspace: ['workspace_id'],
  GetWorkspaceCollaborators: ['workspace_identifier'],
  RemoveWorkspaceCollaborator: ['collaborator_identifier', 'workspace_id'],
  DeleteWorkspaceInvite: ['invite_id', 'workspace_id'],
  UpdateWorkspaceRestrictions: ['workspace_id'],
  DeleteMultipleRecords: ['base_id', 'table_identifier'],
  ListGridRecords: ['base_id', 'table_id_or_name'],
  DeleteGridRecord: ['grid_base_id', 'record_id', 'table_identifier'],
  GridGetRecord: ['grid_base_id', 'record_id', 'table_identifier'],
  GetRecordComments: ['base_id', 'record_id', 'table_identifier'],
  DeleteCommentFromRecord: ['grid_base_id', 'comment_id_to_delete', 'record_id', 'table_id_or_name'],
  ReadBulkTableRecords: ['data_table_id', 'enterprise_account_id'],
  ...Object.fromEntries(Object.keys(modeSchemas).map((t) => [t, ['mode']])),
};

const scopes: Record<string, string> = {
  CreateGridWorkspace: 'workspacesAndBases:manage',
  DeleteWorkspace: 'workspacesAndBases:manage',
  MoveGridBase: 'workspacesAndBases:manage',
  GetWorkspaceCollaborators: 'workspacesAndBases:read',
  AddWorkspaceCollaborator: 'workspacesAndBases:write',
  RemoveWorkspaceCollaborator: 'workspacesAndBases:write',
  UpdateWorkspaceCollaboratorPermission: 'workspacesAndBases:write',
  DeleteWorkspaceInvite: 'workspacesAndBases:write',
  UpdateWorkspaceRestrictions: 'workspacesAndBases:write',
  ListGridRecords: 'data.records:read',
  GridGetRecord: 'data.records:read',
  GetRecordComments: 'data.recordComments:read',
  AddRecordComment: 'data.recordComments:write',
  DeleteCommentFromRecord: 'data.recordComments:write',
  UpdateRecordComment: 'data.recordComments:write',
  DeleteRecordsByPrimaryKeys: 'hyperDB.records:write',
  UpsertGridRecords: 'hyperDB.records:write',
  ReadBulkTableRecords: 'hyperDB.records:read',
};

const api = catalogSuite({
  ...suiteOptions,
  toolSetConfig: (url) => ({ baseUrls: { content: `${url}/content` } }),
});
const { call } = api;

describe('GridApi workspace and record declarations', () => {
  it('declares 9 workspace tools and 17 record, comment and bulk-table tools', () => {
    expect(workspaceTools).toHaveLength(9);
    expect(recordTools).toHaveLength(17);
    expect(cases.map((c) => c.tool).sort()).toEqual(
      [...workspaceTools, ...recordTools].map((t) => t.name).sort(),
    );
  });

  it('every base id is sent as baseId (the pacing key); only the attachment upload uses the content server', () => {
    for (const t of [...workspaceTools, ...recordTools]) {
      const server = t.name === 'UploadAttachmentToGrid' ? 'content' : 'default';
      expect(t.server ?? 'default', t.name).toBe(server);
      const usesBase = t.path.includes('{baseId}');
      expect(t.params?.some((p) => p.in === 'path' && p.apiName === 'baseId') ?? false, t.name).toBe(
        usesBase,
      );
    }
    expect(recordTools.filter((t) => t.path.includes('{baseId}'))).toHaveLength(14);
  });

  it('every tool authorizes through grid-auth-provider with the endpoint scope', () => {
    for (const t of [...workspaceTools, ...recordTools]) {
      const scope = scopes[t.name] ?? 'data.records:write';
      expect(t.auth, t.name).toEqual({ kind: 'provider', provider: 'grid-auth-provider', scopes: [scope] });
    }
  });
});

describe('GridApi workspaces and records over MCP', () => {
  api.itListsTools(
    'lists the 26 tools with their required parameters and hints',
    {
      required: requiredParams,
      hints: {
        ReadBulkTableRecords: { readOnlyHint: true },
        DeleteRecordsByPrimaryKeys: { destructiveHint: true },
        UpdateWorkspaceRestrictions: { readOnlyHint: false },
        ListGridRecords: { readOnlyHint: true },
      },
      propertySchemas: {
        ListGridRecords: { cell_format_method: { enum: ['json', 'string'] }, page_size: { default: 100 } },
      },
      properties: {
        UpdateRecordComment: [
          'mode',
          'request_body',
          'base_identifier',
          'table_id_or_name',
          'record_id',
          'comment_id',
        ],
      },
    },
    () => {
      expect(Object.keys(requiredParams)).toHaveLength(26);
    },
  );

  api.itSendsRequests(cases);

  api.itReturnsRequestSchemas(modeSchemas);

  it('sends {} for a fields body with no fields, and no query the caller did not ask for', async () => {
    await call('UpdateWorkspaceRestrictions', { workspace_id: WSP });
    await call('ReadBulkTableRecords', { data_table_id: EDT, enterprise_account_id: ENT });
    await call('ListGridRecords', { base_id: BASE, table_id_or_name: TBL });
    expect(api.upstream.requests.map((r) => r.body)).toEqual([{}, {}, undefined]);
    expect(api.upstream.requests[2]!.query).toEqual([]);
  });

  it('keeps a table name with / and ? inside its path segment', async () => {
    const result = await call('GridGetRecord', {
      grid_base_id: BASE,
      record_id: REC,
      table_identifier: 'a/b?c',
    });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(api.upstream.requests[0]!.rawPath).toBe(`/${BASE}/a%2Fb%3Fc/${REC}`);
    expect(api.upstream.requests[0]!.query).toEqual([]);
  });
});

describe('GridApi workspaces and records bad input', () => {
  api.itRejectsBadInput([
    [
      'bad cell_format_method',
      'ListGridRecords',
      { base_id: BASE, table_id_or_name: TBL, cell_format_method: 'html' },
      /'cell_format_method' must be one of: "json", "string"/,
    ],
    [
      'bad cell_format',
      'GridGetRecord',
      { grid_base_id: BASE, record_id: REC, table_identifier: TBL, cell_format: 'JSON' },
      /'cell_format' must be one of/,
    ],
    [
      'sort_order as a malformed JSON string',
      'ListGridRecords',
      { base_id: BASE, table_id_or_name: TBL, sort_order: '[{"field": "Name"' },
      /'sort_order' is not valid JSON/,
    ],
    [
      'sort_order with an unknown direction',
      'ListGridRecords',
      { base_id: BASE, table_id_or_name: TBL, sort_order: '[{"field":"Name","direction":"up"}]' },
      /sort_order\[0\]\.direction must be one of: "asc", "desc"/,
    ],
    [
      'sort_order without a field',
      'ListGridRecords',
      { base_id: BASE, table_id_or_name: TBL, sort_order: '[{"direction":"asc"}]' },
      /sort_order\[0\]\.field is required/,
    ],
    [
      'page_size over 100',
      'ListGridRecords',
      { base_id: BASE, table_id_or_name: TBL, page_size: 101 },
      /'page_size' must be <= 100/,
    ],
    [
      'unknown record metadata',
      'ListGridRecords',
      { base_id: BASE, table_id_or_name: TBL, record_metadata_fields: ['likes'] },
      /'record_metadata_fields\[0\]' must be one of: "commentCount"/,
    ],
    ['missing required table id', 'ListGridRecords', { base_id: BASE }, /'table_id_or_name' is required/],
    [
      'missing required base id',
      'DeleteGridRecord',
      { record_id: REC, table_identifier: TBL },
      /'grid_base_id' is required/,
    ],
    [
      'missing required workspace id',
      'DeleteWorkspaceInvite',
      { invite_id: INV },
      /'workspace_id' is required/,
    ],
    [
      'missing (x) comment id in execute',
      'UpdateRecordComment',
      executeArgs(text, { base_identifier: BASE, table_id_or_name: TBL, record_id: REC }),
      /'comment_id' is required when mode is execute/,
    ],
    [
      'missing (x) target workspace in execute',
      'MoveGridBase',
      executeArgs(move),
      /'target_workspace_id' is required when mode is execute/,
    ],
    [
      'bad restriction value',
      'UpdateWorkspaceRestrictions',
      { workspace_id: WSP, invite_creation_restriction: 'owners' },
      /'invite_creation_restriction' must be one of: "unrestricted", "onlyOwners"/,
    ],
    [
      'unknown include value',
      'GetWorkspaceCollaborators',
      { workspace_identifier: WSP, include_additional_information: ['invites'] },
      /'include_additional_information\[0\]' must be one of/,
    ],
    [
      'record ids as a string',
      'DeleteMultipleRecords',
      { base_id: BASE, table_identifier: TBL, record_ids_to_delete: REC },
      /'record_ids_to_delete' must be of type array/,
    ],
    [
      'fractional maximum records',
      'ReadBulkTableRecords',
      { data_table_id: EDT, enterprise_account_id: ENT, maximum_records_to_retrieve: 2.5 },
      /'maximum_records_to_retrieve' must be of type integer/,
    ],
    [
      'invalid JSON request_body',
      'CreateGridRecords',
      { mode: 'execute', base_id: BASE, table_id_or_name: TBL, request_body: '{"records": [' },
      /request_body' is not valid JSON/,
    ],
    [
      'schema-violating records body',
      'UpdateGridRecords',
      executeArgs({ records: [{ id: REC }] }, { grid_base_id: BASE, grid_table_id_or_name: TBL }),
      /request_body\.records\[0\]\.fields is required/,
    ],
    [
      'schema-violating permission level',
      'UpdateWorkspaceCollaboratorPermission',
      executeArgs({ permissionLevel: 'admin' }, { workspace_id: WSP, collaborator_id: USR }),
      /request_body\.permissionLevel must be one of/,
    ],
    [
      'empty primary key list',
      'DeleteRecordsByPrimaryKeys',
      executeArgs({ primaryKeysForDelete: [] }, { enterprise_account_id: ENT, data_table_id: EDT }),
      /request_body\.primaryKeysForDelete/,
    ],
    [
      'upload without the file',
      'UploadAttachmentToGrid',
      executeArgs(
        { contentType: 'text/plain', filename: 'a.txt' },
        { grid_base_id: BASE, grid_record_id: REC, attachment_field_id_or_name: 'Files' },
      ),
      /request_body\.file is required/,
    ],
    [
      'dot-dot record id',
      'DeleteGridRecord',
      { grid_base_id: BASE, record_id: '..', table_identifier: TBL },
      /'record_id'/,
    ],
    ['empty base id', 'ListGridRecords', { base_id: '', table_id_or_name: TBL }, /'base_id'/],
    [
      'unknown parameter',
      'ListGridRecords',
      { base_id: BASE, table_id_or_name: TBL, fields: ['Name'] },
      /Unknown parameter 'fields'/,
    ],
  ]);
});
