import { catalogSuite, executeArgs, type RequestCase, resultText } from '@toolhost/testing';
import { describe, expect, it } from 'vitest';
import * as schemas from '../src/schemas/bases-schema.generated.js';
import { suiteOptions } from './suite-options.js';

const APP = 'appBASE0000000001';
const TBL = 'tblTABLE000000001';
const FLD = 'fldFIELD000000001';
const VIW = 'viwVIEW0000000001';
const USR = 'usrUSER0000000001';
const PBD = 'pbdPAGES000000001';

const fields = [{ name: 'Name', type: 'singleLineText' }];
const newBase = { name: 'Ops', workspaceId: 'wspWORK000000001', tables: [{ name: 'Tasks', fields }] };
const addUsers = { collaborators: [{ user: { id: USR }, permissionLevel: 'edit' }] };
const addGroup = { collaborators: [{ group: { id: 'ugpGROUP00000001' }, permissionLevel: 'read' }] };
const newField = { name: 'Done', type: 'checkbox', options: { color: 'greenBright', icon: 'check' } };

const cases: RequestCase[] = [
  {
    tool: 'ListGridBases',
    args: { pagination_offset: 'itr123/app9' },
    method: 'GET',
    path: '/meta/bases',
    query: [['offset', 'itr123/app9']],
  },
  {
    tool: 'CreateGridBase',
    args: executeArgs(newBase),
    method: 'POST',
    path: '/meta/bases',
    body: newBase,
  },
  { tool: 'DeleteGridBase', args: { base_id: APP }, method: 'DELETE', path: `/meta/bases/${APP}` },
  {
    tool: 'GetBaseCollaborators',
    args: { base_id: APP, fields_to_include: ['collaborators', 'interfaces'] },
    method: 'GET',
    path: `/meta/bases/${APP}`,
    query: [
      ['include', 'collaborators'],
      ['include', 'interfaces'],
    ],
  },
  {
    tool: 'ListBaseBlockInstallations',
    args: { base_id: APP },
    method: 'GET',
    path: `/meta/bases/${APP}/blockInstallations`,
  },
  {
    tool: 'DeleteGridBlockInstallation',
    args: { grid_base_id: APP, block_installation_id: 'bliBLOCK00000001' },
    method: 'DELETE',
    path: `/meta/bases/${APP}/blockInstallations/bliBLOCK00000001`,
  },
  {
    tool: 'ManageGridBlockInstallation',
    args: executeArgs(
      { state: 'disabled' },
      { grid_base_id: APP, block_installation_id: 'bliBLOCK00000001' },
    ),
    method: 'PATCH',
    path: `/meta/bases/${APP}/blockInstallations/bliBLOCK00000001`,
    body: { state: 'disabled' },
  },
  {
    tool: 'AddBaseCollaborator',
    args: executeArgs(addGroup, { base_id: APP }),
    method: 'POST',
    path: `/meta/bases/${APP}/collaborators`,
    body: addGroup,
  },
  {
    tool: 'RemoveBaseCollaborator',
    args: { base_id: APP, collaborator_id: USR },
    method: 'DELETE',
    path: `/meta/bases/${APP}/collaborators/${USR}`,
  },
  {
    tool: 'UpdateCollaboratorPermission',
    args: executeArgs({ permissionLevel: 'comment' }, { base_identifier: APP, collaborator_id: USR }),
    method: 'PATCH',
    path: `/meta/bases/${APP}/collaborators/${USR}`,
    body: { permissionLevel: 'comment' },
  },
  {
    tool: 'GetInterfaceInfo',
    args: { grid_base_id: APP, interface_id: PBD, include_elements: ['collaborators', 'inviteLinks'] },
    method: 'GET',
    path: `/meta/bases/${APP}/interfaces/${PBD}`,
    query: [
      ['include', 'collaborators'],
      ['include', 'inviteLinks'],
    ],
  },
  {
    tool: 'AddCollaboratorToGridInterface',
    args: executeArgs(addUsers, { grid_base_id: APP, page_bundle_id: PBD }),
    method: 'POST',
    path: `/meta/bases/${APP}/interfaces/${PBD}/collaborators`,
    body: addUsers,
  },
  {
    tool: 'RemoveInterfaceCollaborator',
    args: { base_id: APP, collaborator_id: USR, interface_page_bundle_id: PBD },
    method: 'DELETE',
    path: `/meta/bases/${APP}/interfaces/${PBD}/collaborators/${USR}`,
  },
  {
    tool: 'UpdateCollaboratorPermissions',
    args: executeArgs(
      { permissionLevel: 'read' },
      { base_identifier: APP, interface_page_bundle_id: PBD, collaborator_id: USR },
    ),
    method: 'PATCH',
    path: `/meta/bases/${APP}/interfaces/${PBD}/collaborators/${USR}`,
    body: { permissionLevel: 'read' },
  },
  {
    tool: 'DeleteInterfaceInvite',
    args: { base_identifier: APP, invite_id: 'invINVITE0000001', page_bundle_id: PBD },
    method: 'DELETE',
    path: `/meta/bases/${APP}/interfaces/${PBD}/invites/invINVITE0000001`,
  },
  {
    tool: 'DeleteBaseInvite',
    args: { base_id: APP, invite_id: 'invINVITE0000001' },
    method: 'DELETE',
    path: `/meta/bases/${APP}/invites/invINVITE0000001`,
  },
  {
    tool: 'ListBaseShares',
    args: { base_identifier: APP },
    method: 'GET',
    path: `/meta/bases/${APP}/shares`,
  },
  {
    tool: 'DeleteGridShare',
    args: { grid_base_id: APP, share_id: 'shrSHARE01' },
    method: 'DELETE',
    path: `/meta/bases/${APP}/shares/shrSHARE01`,
  },
  {
    tool: 'ManageGridSharing',
    args: executeArgs({ state: 'enabled' }, { grid_base_id: APP, share_identifier: 'shrSHARE01' }),
    method: 'PATCH',
    path: `/meta/bases/${APP}/shares/shrSHARE01`,
    body: { state: 'enabled' },
  },
  {
    tool: 'GetGridBaseSchema',
    args: { grid_base_id: APP, fields_to_include: ['visibleFieldIds'] },
    method: 'GET',
    path: `/meta/bases/${APP}/tables`,
    query: [['include', 'visibleFieldIds']],
  },
  {
    tool: 'CreateGridTable',
    args: executeArgs({ name: 'Tasks', description: 'Work items', fields }, { grid_base_id: APP }),
    method: 'POST',
    path: `/meta/bases/${APP}/tables`,
    body: { name: 'Tasks', description: 'Work items', fields },
  },
  {
    tool: 'UpdateGridTable',
    args: executeArgs({ name: 'Done tasks' }, { grid_base_id: APP, table_id_or_name: 'Tasks / 2024' }),
    method: 'PATCH',
    path: `/meta/bases/${APP}/tables/Tasks / 2024`,
    body: { name: 'Done tasks' },
  },
  {
    tool: 'CreateGridField',
    args: executeArgs(newField, { grid_base_id: APP, table_id: TBL }),
    method: 'POST',
    path: `/meta/bases/${APP}/tables/${TBL}/fields`,
    body: newField,
  },
  {
    label: 'name and description',
    tool: 'UpdateGridFieldDetails',
    args: {
      grid_base_id: APP,
      grid_table_id: TBL,
      field_column_id: FLD,
      new_field_name: 'Status',
      new_field_description: 'Where the task stands',
    },
    method: 'PATCH',
    path: `/meta/bases/${APP}/tables/${TBL}/fields/${FLD}`,
    body: { description: 'Where the task stands', name: 'Status' },
  },
  {
    label: 'name only',
    tool: 'UpdateGridFieldDetails',
    args: { grid_base_id: APP, grid_table_id: TBL, field_column_id: FLD, new_field_name: 'Status' },
    method: 'PATCH',
    path: `/meta/bases/${APP}/tables/${TBL}/fields/${FLD}`,
    body: { name: 'Status' },
  },
  {
    label: 'description only, at the 20,000-character limit',
    tool: 'UpdateGridFieldDetails',
    args: {
      grid_base_id: APP,
      grid_table_id: TBL,
      field_column_id: FLD,
      new_field_description: 'd'.repeat(20000),
    },
    method: 'PATCH',
    path: `/meta/bases/${APP}/tables/${TBL}/fields/${FLD}`,
    body: { description: 'd'.repeat(20000) },
  },
  {
    tool: 'ListGridBaseViews',
    args: { grid_base_id: APP, fields_to_include: ['visibleFieldIds'] },
    method: 'GET',
    path: `/meta/bases/${APP}/views`,
    query: [['include', 'visibleFieldIds']],
  },
  {
    tool: 'DeleteGridView',
    args: { grid_base_id: APP, view_identifier: VIW },
    method: 'DELETE',
    path: `/meta/bases/${APP}/views/${VIW}`,
  },
  {
    tool: 'GetGridViewMetadata',
    args: { base_identifier: APP, view_identifier: VIW, include_fields: ['visibleFieldIds'] },
    method: 'GET',
    path: `/meta/bases/${APP}/views/${VIW}`,
    query: [['include', 'visibleFieldIds']],
  },
];

/** Required parameters as listed; mode tools require only `mode` ((x) ids are execute-only). */
const required: Record<string, string[]> = {
  ListGridBases: [],
  CreateGridBase: ['mode'],
  DeleteGridBase: ['base_id'],
  GetBaseCollaborators: ['base_id'],
  ListBaseBlockInstallations: ['base_id'],
  DeleteGridBlockInstallation: ['grid_base_id', 'block_installation_id'],
  ManageGridBlockInstallation: ['mode'],
  AddBaseCollaborator: ['mode'],
  RemoveBaseCollaborator: ['base_id', 'collaborator_id'],
  UpdateCollaboratorPermission: ['mode'],
  GetInterfaceInfo: ['grid_base_id', 'interface_id'],
  AddCollaboratorToGridInterface: ['mode'],
  RemoveInterfaceCollaborator: ['base_id', 'collaborator_id', 'interface_page_bundle_id'],
  UpdateCollaboratorPermissions: ['mode'],
  DeleteInterfaceInvite: ['base_identifier', 'invite_id', 'page_bundle_id'],
  DeleteBaseInvite: ['base_id', 'invite_id'],
  ListBaseShares: ['base_identifier'],
  DeleteGridShare: ['grid_base_id', 'share_id'],
  ManageGridSharing: ['mode'],
  GetGridBaseSchema: ['grid_base_id'],
  CreateGridTable: ['mode'],
  UpdateGridTable: ['mode'],
  CreateGridField: ['mode'],
  UpdateGridFieldDetails: ['grid_base_id', 'grid_table_id', 'field_column_id'],
  ListGridBaseViews: ['grid_base_id'],
  DeleteGridView: ['grid_base_id', 'view_identifier'],
  GetGridViewMetadata: ['base_identifier', 'view_identifier'],
};

const modeSchemas: Record<string, unknown> = {
  CreateGridBase: schemas.createBaseBody,
  ManageGridBlockInstallation: schemas.blockInstallationUpdateBody,
  AddBaseCollaborator: schemas.baseCollaboratorsAddBody,
  UpdateCollaboratorPermission: schemas.baseCollaboratorUpdateBody,
  AddCollaboratorToGridInterface: schemas.interfaceCollaboratorsAddBody,
  UpdateCollaboratorPermissions: schemas.interfaceCollaboratorUpdateBody,
  ManageGridSharing: schemas.shareUpdateBody,
  CreateGridTable: schemas.createTableBody,
  UpdateGridTable: schemas.updateTableBody,
  CreateGridField: schemas.createFieldBody,
};

const api = catalogSuite({
  ...suiteOptions,
  response: { status: 200, body: { id: APP } },
});
const { call } = api;

describe('GridApi bases, collaborators, interfaces, shares, schema and views over MCP', () => {
  api.itListsTools(
    'lists the 27 tools with their required parameters and hints',
    {
      required,
      hints: {
        GetInterfaceInfo: { readOnlyHint: true },
        DeleteGridShare: { destructiveHint: true },
        ManageGridSharing: { readOnlyHint: false },
      },
      propertySchemas: { UpdateGridFieldDetails: { new_field_description: { maxLength: 20000 } } },
    },
    () => {
      expect(Object.keys(required)).toHaveLength(27);
    },
  );

  it('covers every tool in the request table', () => {
    expect(new Set(cases.map((c) => c.tool))).toEqual(new Set(Object.keys(required)));
  });

  api.itSendsRequests(cases);

  api.itReturnsRequestSchemas(modeSchemas);

  it('get_request_schema ignores stale execute-only ids and request_body', async () => {
    const result = await call('ManageGridSharing', {
      mode: 'get_request_schema',
      grid_base_id: 42,
      request_body: '{not json',
    });
    expect(JSON.parse(await resultText(api.host.client, result))).toEqual(schemas.shareUpdateBody);
    expect(api.upstream.requests).toHaveLength(0);
  });
});

const fieldIds = { grid_base_id: APP, grid_table_id: TBL, field_column_id: FLD };

describe('GridApi bases and schema bad input', () => {
  api.itRejectsBadInput([
    [
      'description of 20,001 characters',
      'UpdateGridFieldDetails',
      { ...fieldIds, new_field_description: 'd'.repeat(20001) },
      /'new_field_description' must NOT have more than 20000 characters/,
      'new_field_description',
    ],
    [
      'neither new name nor new description',
      'UpdateGridFieldDetails',
      fieldIds,
      /Give at least one of the parameters 'new_field_name', 'new_field_description'/,
      'new_field_name',
    ],
    [
      'missing required field id',
      'UpdateGridFieldDetails',
      { grid_base_id: APP, grid_table_id: TBL, new_field_name: 'Status' },
      /'field_column_id' is required/,
      'field_column_id',
    ],
    [
      'missing required share id',
      'DeleteGridShare',
      { grid_base_id: APP },
      /'share_id' is required/,
      'share_id',
    ],
    [
      'empty base id',
      'DeleteGridBase',
      { base_id: '' },
      /'base_id' must be a non-empty identifier/,
      'base_id',
    ],
    [
      'missing (x) share id in execute',
      'ManageGridSharing',
      executeArgs({ state: 'enabled' }, { grid_base_id: APP }),
      /'share_identifier' is required when mode is execute/,
      'share_identifier',
    ],
    [
      'execute without request_body',
      'UpdateCollaboratorPermission',
      { mode: 'execute', base_identifier: APP, collaborator_id: USR },
      /'request_body' is required when mode is execute/,
      'request_body',
    ],
    [
      'invalid JSON request_body',
      'CreateGridTable',
      { mode: 'execute', grid_base_id: APP, request_body: '{"name": "Tasks", ' },
      /not valid JSON/,
      'request_body',
    ],
    [
      'schema-violating body',
      'ManageGridSharing',
      executeArgs({ state: 'on' }, { grid_base_id: APP, share_identifier: 'shrSHARE01' }),
      /request_body\.state must be one of/,
      'request_body.state',
    ],
    [
      'body missing a required property',
      'CreateGridBase',
      executeArgs({ name: 'Ops', tables: [] }),
      /request_body\.workspaceId is required/,
      'request_body.workspaceId',
    ],
    [
      'include value the API does not know',
      'GetGridViewMetadata',
      { base_identifier: APP, view_identifier: VIW, include_fields: ['fields'] },
      /'include_fields\[0\]' must be one of: "visibleFieldIds"/,
      'include_fields[0]',
    ],
    [
      'include not an array',
      'GetBaseCollaborators',
      { base_id: APP, fields_to_include: 'collaborators' },
      /'fields_to_include' must be of type array/,
      'fields_to_include',
    ],
    ['unknown parameter', 'ListGridBases', { offset: 'itr1' }, /Unknown parameter 'offset'/, 'offset'],
  ]);
});
