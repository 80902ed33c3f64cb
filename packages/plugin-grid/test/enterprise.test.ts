import { catalogSuite, type RequestCase } from '@toolhost/testing';
import { describe, expect, it } from 'vitest';
import { enterpriseTools } from '../src/catalog/enterprise.js';
import * as schemas from '../src/schemas/enterprise.generated.js';
import { suiteOptions } from './suite-options.js';

const ENT = 'entUBq2RGdihxl3vU';
const USR = 'usrL2PNC5o3H4lBEi';
const base = `/meta/enterpriseAccounts/${ENT}`;

const auditLogRequest = { timePeriod: '2024-01', filter: 'createBase' };
const descendant = { name: 'EMEA' };
const ediscovery = { baseId: 'appLkNDICXNqxSDhG', includeCsvFormat: true };
const moveGroups = { groupIds: ['ugp1mKGb3KXUyQfOZ'], targetEnterpriseAccountId: 'entTarget00000001' };
const moveWorkspaces = {
  targetEnterpriseAccountId: 'entTarget00000001',
  workspaceIds: ['wspmhESAta6clCCwF'],
};
const manageUsers = { users: [{ id: USR, firstName: 'Ada', state: 'deactivated' }] };
const claimUsers = { users: [{ email: 'ada@example.com', state: 'managed' }] };
const adminUsers = { users: [{ id: USR }, { email: 'bob@example.com' }] };
const removeUser = { isDryRun: true, replacementOwnerId: 'usrReplacement001' };

const cases: RequestCase[] = [
  {
    tool: 'GetEnterpriseInfo',
    args: { enterprise_account_id: ENT, fields_to_include: ['aggregated', 'descendants'] },
    method: 'GET',
    path: base,
    query: [
      ['include', 'aggregated'],
      ['include', 'descendants'],
    ],
  },
  {
    tool: 'GetAuditLogEvents',
    args: {
      enterprise_account_id: ENT,
      end_time: '2024-02-01T00:00:00Z',
      event_category: 'user',
      event_type: 'createBase',
      filter_by_originating_user_id: USR,
      model_identifier: 'appLkNDICXNqxSDhG',
      next_page_token: 'n-1',
      page_size: 500,
      previous_event_marker: 'p-1',
      sort_order: 'ascending',
      start_time: '2024-01-01T00:00:00Z',
    },
    method: 'GET',
    path: `${base}/auditLogEvents`,
    query: [
      ['endTime', '2024-02-01T00:00:00Z'],
      ['category', 'user'],
      ['eventType', 'createBase'],
      ['originatingUserId', USR],
      ['modelId', 'appLkNDICXNqxSDhG'],
      ['next', 'n-1'],
      ['pageSize', '500'],
      ['previous', 'p-1'],
      ['sortOrder', 'ascending'],
      ['startTime', '2024-01-01T00:00:00Z'],
    ],
  },
  {
    tool: 'RetrieveAuditLogRequests',
    args: { enterprise_account_id: ENT, audit_log_page_size: 50, pagination_offset: 100 },
    method: 'GET',
    path: `${base}/auditLogs`,
    query: [
      ['pageSize', '50'],
      ['offset', '100'],
    ],
  },
  {
    tool: 'CreateAuditLogRequest',
    args: { mode: 'execute', enterprise_account_id: ENT, request_body: JSON.stringify(auditLogRequest) },
    method: 'POST',
    path: `${base}/auditLogs`,
    body: auditLogRequest,
  },
  {
    tool: 'RetrieveAuditLog',
    args: { audit_log_task_id: 'ealTask0000000001', enterprise_account_id: ENT },
    method: 'GET',
    path: `${base}/auditLogs/ealTask0000000001`,
  },
  {
    tool: 'GetGridChangeEvents',
    args: {
      enterprise_account_id: ENT,
      end_time: '2024-02-01T00:00:00Z',
      page_size_limit: 25,
      pagination_offset: 'off-2',
      start_time: '2024-01-01T00:00:00Z',
    },
    method: 'GET',
    path: `${base}/changeEvents`,
    query: [
      ['endTime', '2024-02-01T00:00:00Z'],
      ['pageSize', '25'],
      ['offset', 'off-2'],
      ['startTime', '2024-01-01T00:00:00Z'],
    ],
  },
  {
    tool: 'CreateDescendantEnterpriseAccount',
    args: { mode: 'execute', enterprise_account_id: ENT, request_body: JSON.stringify(descendant) },
    method: 'POST',
    path: `${base}/descendants`,
    body: descendant,
  },
  {
    tool: 'GetEdiscoveryExportsStatus',
    args: {
      enterprise_account_id: ENT,
      ediscovery_export_state: 'processing',
      pagination_offset: 10,
      result_page_size: 20,
    },
    method: 'GET',
    path: `${base}/exports`,
    query: [
      ['state', 'processing'],
      ['offset', '10'],
      ['pageSize', '20'],
    ],
  },
  {
    tool: 'CreateEdiscoveryExport',
    args: { mode: 'execute', enterprise_account_id: ENT, request_body: JSON.stringify(ediscovery) },
    method: 'POST',
    path: `${base}/exports`,
    body: ediscovery,
  },
  {
    tool: 'GetEdiscoveryExportStatus',
    args: { enterprise_account_id: ENT, enterprise_task_id: 'etkTask0000000001' },
    method: 'GET',
    path: `${base}/exports/etkTask0000000001`,
  },
  {
    tool: 'BatchMoveUserGroupsBetweenAccounts',
    args: { mode: 'execute', target_enterprise_account_id: ENT, request_body: JSON.stringify(moveGroups) },
    method: 'POST',
    path: `${base}/moveGroups`,
    body: moveGroups,
  },
  {
    tool: 'MoveWorkspacesBetweenEnterpriseAccounts',
    args: { mode: 'execute', enterprise_account_id: ENT, request_body: JSON.stringify(moveWorkspaces) },
    method: 'POST',
    path: `${base}/moveWorkspaces`,
    body: moveWorkspaces,
  },
  {
    tool: 'DeleteUsersByEmail',
    args: { enterprise_account_id: ENT, email_addresses: ['ada@example.com', 'bob@example.com'] },
    method: 'DELETE',
    path: `${base}/users`,
    query: [
      ['email', 'ada@example.com'],
      ['email', 'bob@example.com'],
    ],
  },
  {
    tool: 'GetGridUserInfo',
    args: {
      enterprise_account_id: ENT,
      include_fields: ['collaborations', 'aggregated'],
      user_emails: ['ada@example.com'],
      user_ids: [USR, 'usrOther000000001'],
    },
    method: 'GET',
    path: `${base}/users`,
    query: [
      ['include', 'collaborations'],
      ['include', 'aggregated'],
      ['email', 'ada@example.com'],
      ['id', USR],
      ['id', 'usrOther000000001'],
    ],
  },
  {
    tool: 'BatchManageEnterpriseUsers',
    args: { mode: 'execute', enterprise_account_id: ENT, request_body: JSON.stringify(manageUsers) },
    method: 'PATCH',
    path: `${base}/users`,
    body: manageUsers,
  },
  {
    tool: 'BatchManageUserMembership',
    args: { mode: 'execute', enterprise_account_id: ENT, request_body: JSON.stringify(claimUsers) },
    method: 'POST',
    path: `${base}/users/claim`,
    body: claimUsers,
  },
  {
    tool: 'GrantAdminAccess',
    args: { mode: 'execute', enterprise_account_id: ENT, request_body: JSON.stringify(adminUsers) },
    method: 'POST',
    path: `${base}/users/grantAdminAccess`,
    body: adminUsers,
  },
  {
    tool: 'RevokeAdminAccess',
    args: { mode: 'execute', enterprise_account_id: ENT, request_body: JSON.stringify(adminUsers) },
    method: 'POST',
    path: `${base}/users/revokeAdminAccess`,
    body: adminUsers,
  },
  {
    tool: 'DeleteEnterpriseUser',
    args: { enterprise_account_id: ENT, user_id: USR },
    method: 'DELETE',
    path: `${base}/users/${USR}`,
  },
  {
    tool: 'GetUserInformation',
    args: { enterprise_account_id: ENT, user_id: USR, include_fields: ['descendants'] },
    method: 'GET',
    path: `${base}/users/${USR}`,
    query: [['include', 'descendants']],
  },
  {
    tool: 'ManageEnterpriseAccountUser',
    args: {
      enterprise_account_id: ENT,
      user_id: USR,
      update_user_email: 'ada@new.example.com',
      user_first_name: 'Ada',
      user_last_name: 'Lovelace',
      user_state: 'provisioned',
    },
    method: 'PATCH',
    path: `${base}/users/${USR}`,
    body: { email: 'ada@new.example.com', firstName: 'Ada', lastName: 'Lovelace', state: 'provisioned' },
  },
  {
    tool: 'LogoutEnterpriseUser',
    args: { enterprise_account_id: ENT, enterprise_user_id: USR, logout_request_body: { a: 1 } },
    method: 'POST',
    path: `${base}/users/${USR}/logout`,
    body: { a: 1 },
  },
  {
    tool: 'RemoveUserFromEnterprise',
    args: {
      mode: 'execute',
      enterprise_account_id: ENT,
      user_id: USR,
      request_body: JSON.stringify(removeUser),
    },
    method: 'POST',
    path: `${base}/users/${USR}/remove`,
    body: removeUser,
  },
  {
    tool: 'GetUserGroupInfo',
    args: { user_group_id: 'ugp1mKGb3KXUyQfOZ', include_additional_info: ['collaborations'] },
    method: 'GET',
    path: '/meta/groups/ugp1mKGb3KXUyQfOZ',
    query: [['include', 'collaborations']],
  },
  { tool: 'RetrieveUserIdAndScopes', args: {}, method: 'GET', path: '/meta/whoami' },
];

const modeSchemas: Record<string, unknown> = {
  CreateAuditLogRequest: schemas.createAuditLogRequestBody,
  CreateDescendantEnterpriseAccount: schemas.createDescendantBody,
  CreateEdiscoveryExport: schemas.createEdiscoveryExportBody,
  BatchMoveUserGroupsBetweenAccounts: schemas.moveGroupsBody,
  MoveWorkspacesBetweenEnterpriseAccounts: schemas.moveWorkspacesBody,
  BatchManageEnterpriseUsers: schemas.manageUsersBody,
  BatchManageUserMembership: schemas.claimUsersBody,
  GrantAdminAccess: schemas.grantAdminAccessBody,
  RevokeAdminAccess: schemas.revokeAdminAccessBody,
  RemoveUserFromEnterprise: schemas.removeUserBody,
};

/** Required parameters each tool's input schema must list (spec R; mode tools: only `mode`). */
const required: Record<string, string[]> = {
  GetEnterpriseInfo: ['enterprise_account_id'],
  GetAuditLogEvents: ['enterprise_account_id'],
  RetrieveAuditLogRequests: ['enterprise_account_id'],
  RetrieveAuditLog: ['audit_log_task_id', 'enterprise_account_id'],
  GetGridChangeEvents: ['enterprise_account_id'],
  GetEdiscoveryExportsStatus: ['enterprise_account_id'],
  GetEdiscoveryExportStatus: ['enterprise_account_id', 'enterprise_task_id'],
  DeleteUsersByEmail: ['enterprise_account_id'],
  GetGridUserInfo: ['enterprise_account_id'],
  DeleteEnterpriseUser: ['enterprise_account_id', 'user_id'],
  GetUserInformation: ['enterprise_account_id', 'user_id'],
  ManageEnterpriseAccountUser: ['enterprise_account_id', 'user_id'],
  LogoutEnterpriseUser: ['enterprise_account_id', 'enterprise_user_id'],
  GetUserGroupInfo: ['user_group_id'],
  RetrieveUserIdAndScopes: [],
  ...Object.fromEntries(Object.keys(modeSchemas).map((t) => [t, ['mode']])),
};

const api = catalogSuite(suiteOptions);
const { call } = api;

describe('GridApi enterprise administration over MCP', () => {
  it('the table covers every declared enterprise tool (25)', () => {
    expect(enterpriseTools.map((t) => t.name).sort()).toEqual(cases.map((c) => c.tool).sort());
    expect(cases).toHaveLength(25);
    expect(Object.keys(required).sort()).toEqual(cases.map((c) => c.tool).sort());
  });

  api.itListsTools('lists the tools with their required parameters and hints', {
    required,
    properties: { RetrieveUserIdAndScopes: [] },
    hints: {
      GetAuditLogEvents: { readOnlyHint: true },
      RemoveUserFromEnterprise: { destructiveHint: true },
      RevokeAdminAccess: { destructiveHint: true },
      DeleteEnterpriseUser: { destructiveHint: true },
    },
  });

  api.itSendsRequests(cases);

  it('LogoutEnterpriseUser sends {} when logout_request_body is left out', async () => {
    const result = await call('LogoutEnterpriseUser', {
      enterprise_account_id: ENT,
      enterprise_user_id: USR,
    });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(api.upstream.requests[0]!.body).toEqual({});
  });

  api.itReturnsRequestSchemas(modeSchemas);
});

describe('GridApi enterprise administration bad input', () => {
  api.itRejectsBadInput([
    [
      'eDiscovery export state',
      'GetEdiscoveryExportsStatus',
      { enterprise_account_id: ENT, ediscovery_export_state: 'finished' },
      /'ediscovery_export_state' must be one of: "pending", "processing", "error", "done"/,
    ],
    [
      'user_state',
      'ManageEnterpriseAccountUser',
      { enterprise_account_id: ENT, user_id: USR, user_state: 'active' },
      /'user_state' must be one of: "provisioned", "deactivated"/,
    ],
    [
      'sort_order',
      'GetAuditLogEvents',
      { enterprise_account_id: ENT, sort_order: 'desc' },
      /'sort_order' must be one of: "ascending", "descending"/,
    ],
    [
      'include value',
      'GetEnterpriseInfo',
      { enterprise_account_id: ENT, fields_to_include: ['collaborations'] },
      /'fields_to_include\[0\]' must be one of: "aggregated", "descendants"/,
    ],
    [
      'group include value',
      'GetUserGroupInfo',
      { user_group_id: 'ugp1mKGb3KXUyQfOZ', include_additional_info: ['members'] },
      /'include_additional_info\[0\]' must be one of: "collaborations"/,
    ],
    ['missing required id', 'GetUserInformation', { enterprise_account_id: ENT }, /'user_id' is required/],
    [
      'unknown parameter',
      'RetrieveUserIdAndScopes',
      { enterprise_account_id: ENT },
      /Unknown parameter 'enterprise_account_id'/,
    ],
    [
      'empty path id',
      'DeleteEnterpriseUser',
      { enterprise_account_id: ENT, user_id: '' },
      /'user_id' must be a non-empty identifier/,
    ],
    [
      'wrong type',
      'GetAuditLogEvents',
      { enterprise_account_id: ENT, page_size: 'a hundred' },
      /'page_size' must be of type number/,
    ],
    [
      'page size above the API maximum',
      'GetEdiscoveryExportsStatus',
      { enterprise_account_id: ENT, result_page_size: 101 },
      /'result_page_size' must be <= 100/,
    ],
    [
      'non-array emails',
      'DeleteUsersByEmail',
      { enterprise_account_id: ENT, email_addresses: 'ada@example.com' },
      /'email_addresses' must be of type array/,
    ],
    [
      'invalid email',
      'ManageEnterpriseAccountUser',
      { enterprise_account_id: ENT, user_id: USR, update_user_email: 'not-an-email' },
      /'update_user_email' must be a valid email/,
    ],
    [
      'start time not ISO 8601',
      'GetGridChangeEvents',
      { enterprise_account_id: ENT, start_time: 'yesterday' },
      /'start_time' must be a valid date-time/,
    ],
    [
      'logout body that is not an object',
      'LogoutEnterpriseUser',
      { enterprise_account_id: ENT, enterprise_user_id: USR, logout_request_body: '{}' },
      /'logout_request_body' must be of type object/,
    ],
    [
      'invalid JSON request_body',
      'GrantAdminAccess',
      { mode: 'execute', enterprise_account_id: ENT, request_body: '{"users": [' },
      /not valid JSON/,
    ],
    [
      'schema-violating body',
      'BatchManageEnterpriseUsers',
      {
        mode: 'execute',
        enterprise_account_id: ENT,
        request_body: JSON.stringify({ users: [{ id: USR, state: 'active' }] }),
      },
      /request_body\.users\[0\]\.state must be one of: "provisioned", "deactivated"/,
    ],
    [
      'too many groups in body',
      'BatchMoveUserGroupsBetweenAccounts',
      {
        mode: 'execute',
        target_enterprise_account_id: ENT,
        request_body: JSON.stringify({
          targetEnterpriseAccountId: 'entTarget00000001',
          groupIds: Array.from({ length: 101 }, (_, i) => `ugp${i}`),
        }),
      },
      /request_body\.groupIds/,
    ],
    [
      'missing (x) user id',
      'RemoveUserFromEnterprise',
      { mode: 'execute', enterprise_account_id: ENT, request_body: '{}' },
      /'user_id' is required when mode is execute/,
    ],
    [
      'missing request_body',
      'CreateEdiscoveryExport',
      { mode: 'execute', enterprise_account_id: ENT },
      /'request_body' is required when mode is execute/,
    ],
  ]);
});
