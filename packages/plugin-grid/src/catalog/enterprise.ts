import type { ExecuteOnly, JsonSchema, ParamDeclaration, ToolDeclaration } from '@toolhost/core';
import {
  claimUsersBody,
  createAuditLogRequestBody,
  createDescendantBody,
  createEdiscoveryExportBody,
  grantAdminAccessBody,
  manageUsersBody,
  moveGroupsBody,
  moveWorkspacesBody,
  removeUserBody,
  revokeAdminAccessBody,
} from '../schemas/enterprise.generated.js';
import { gridAuth } from './auth.js';
import { idOf, pathId, query } from './params.js';

const accounts = '/meta/enterpriseAccounts/{enterpriseAccountId}';

const accountRead = gridAuth('enterprise.account:read');
const accountWrite = gridAuth('enterprise.account:write');
const auditLogsRead = gridAuth('enterprise.auditLogs:read');
const exportsManage = gridAuth('enterprise.exports:manage');
const userRead = gridAuth('enterprise.user:read');
const userWrite = gridAuth('enterprise.user:write');

/** The enterprise account in the path; mode tools take it as an (x) parameter. */
function account(executeOnly?: ExecuteOnly, description = ''): ParamDeclaration {
  return pathId('enterprise_account_id', 'enterpriseAccountId', description, executeOnly);
}

const strings: JsonSchema = { type: 'array', items: { type: 'string' } };
const emails: JsonSchema = { type: 'array', items: { type: 'string', format: 'email' } };
const dateTime: JsonSchema = { type: 'string', format: 'date-time' };

/** Airtable's `include` values for enterprise users. */
const userInclude = query(
  'include_fields',
  'include',
  { type: 'array', items: { type: 'string', enum: ['collaborations', 'aggregated', 'descendants'] } },
  '',
);

const userId = pathId('user_id', 'userId', idOf('usr'));

export const enterpriseTools: ToolDeclaration[] = [
  {
    name: 'GetEnterpriseInfo',
    description: 'Airtable: an enterprise account (its users, workspaces, groups, domains).',
    method: 'GET',
    path: accounts,
    auth: accountRead,
    params: [
      account(),
      query(
        'fields_to_include',
        'include',
        { type: 'array', items: { type: 'string', enum: ['aggregated', 'descendants'] } },
        '',
      ),
    ],
  },
  {
    name: 'GetAuditLogEvents',
    description:
      'Airtable enterprise audit log: list events (who did what, when), filtered by time, user, type and category.',
    method: 'GET',
    path: `${accounts}/auditLogEvents`,
    auth: auditLogsRead,
    params: [
      account(),
      query('end_time', 'endTime', dateTime, ''),
      query('event_category', 'category', { type: 'string' }, 'e.g. user'),
      query('event_type', 'eventType', { type: 'string' }, 'e.g. createBase'),
      query('filter_by_originating_user_id', 'originatingUserId', { type: 'string' }, 'Acting user (usr…)'),
      query('model_identifier', 'modelId', { type: 'string' }, 'Acted-on object id'),
      query('next_page_token', 'next', { type: 'string' }, ''),
      query('page_size', 'pageSize', { type: 'number', maximum: 1000 }, ''),
      query('previous_event_marker', 'previous', { type: 'string' }, 'Previous-page cursor'),
      query('sort_order', 'sortOrder', { type: 'string', enum: ['ascending', 'descending'] }, ''),
      query('start_time', 'startTime', dateTime, ''),
    ],
  },
  {
    name: 'RetrieveAuditLogRequests',
    description: 'Airtable enterprise: list audit log export requests.',
    method: 'GET',
    path: `${accounts}/auditLogs`,
    auth: auditLogsRead,
    params: [
      account(),
      query('audit_log_page_size', 'pageSize', { type: 'number', maximum: 100 }, ''),
      query('pagination_offset', 'offset', { type: 'number' }, ''),
    ],
  },
  {
    name: 'CreateAuditLogRequest',
    description: 'Airtable enterprise: request an audit log export for a time period.',
    method: 'POST',
    path: `${accounts}/auditLogs`,
    auth: auditLogsRead,
    body: { kind: 'mode', schema: createAuditLogRequestBody },
    params: [account('required')],
  },
  {
    name: 'RetrieveAuditLog',
    description: 'Airtable enterprise: one audit log export request and its status.',
    method: 'GET',
    path: `${accounts}/auditLogs/{enterpriseAuditLogTaskId}`,
    auth: auditLogsRead,
    params: [pathId('audit_log_task_id', 'enterpriseAuditLogTaskId', ''), account()],
  },
  {
    name: 'GetGridChangeEvents',
    description: 'Airtable enterprise: list change events (data changes in bases) over a time range.',
    method: 'GET',
    path: `${accounts}/changeEvents`,
    auth: gridAuth('enterprise.changeEvents:read'),
    params: [
      account(),
      query('end_time', 'endTime', dateTime, ''),
      query('page_size_limit', 'pageSize', { type: 'number', maximum: 100 }, ''),
      query('pagination_offset', 'offset', { type: 'string' }, ''),
      query('start_time', 'startTime', dateTime, ''),
    ],
  },
  {
    name: 'CreateDescendantEnterpriseAccount',
    description: 'Airtable enterprise: create a descendant (child) account under a root account.',
    method: 'POST',
    path: `${accounts}/descendants`,
    auth: accountWrite,
    body: { kind: 'mode', schema: createDescendantBody },
    params: [account('required', 'Root account (Enterprise Hub)')],
  },
  {
    name: 'GetEdiscoveryExportsStatus',
    description: 'Airtable enterprise: list eDiscovery exports and their states.',
    method: 'GET',
    path: `${accounts}/exports`,
    auth: exportsManage,
    params: [
      account(),
      query(
        'ediscovery_export_state',
        'state',
        { type: 'string', enum: ['pending', 'processing', 'error', 'done'] },
        '',
      ),
      query('pagination_offset', 'offset', { type: 'number' }, ''),
      query('result_page_size', 'pageSize', { type: 'number', maximum: 100 }, ''),
    ],
  },
  {
    name: 'CreateEdiscoveryExport',
    description: 'Airtable enterprise: start an eDiscovery export of a base.',
    method: 'POST',
    path: `${accounts}/exports`,
    auth: exportsManage,
    body: { kind: 'mode', schema: createEdiscoveryExportBody },
    params: [account('required')],
  },
  {
    name: 'GetEdiscoveryExportStatus',
    description: 'Airtable enterprise: one eDiscovery export and its state.',
    method: 'GET',
    path: `${accounts}/exports/{enterpriseTaskId}`,
    auth: exportsManage,
    params: [account(), pathId('enterprise_task_id', 'enterpriseTaskId', '')],
  },
  {
    name: 'BatchMoveUserGroupsBetweenAccounts',
    // Airtable's path holds the account the groups move from; the destination is the body's
    // targetEnterpriseAccountId. The spec names the only id parameter as the target, so the
    // name stays and the description says where each id goes.
    description:
      'Airtable enterprise: move user groups to another enterprise account; the id given is the source.',
    method: 'POST',
    path: `${accounts}/moveGroups`,
    auth: gridAuth('enterprise.groups:manage'),
    body: { kind: 'mode', schema: moveGroupsBody },
    params: [
      pathId(
        'target_enterprise_account_id',
        'enterpriseAccountId',
        'SOURCE account; target in body',
        'required',
      ),
    ],
  },
  {
    name: 'MoveWorkspacesBetweenEnterpriseAccounts',
    // As for moveGroups: the path is the source account, the destination is in the body
    // (targetEnterpriseAccountId), although the spec calls enterprise_account_id the destination.
    description:
      'Airtable enterprise: move workspaces to another enterprise account; the id given is the source.',
    method: 'POST',
    path: `${accounts}/moveWorkspaces`,
    auth: gridAuth('workspacesAndBases:manage'),
    body: { kind: 'mode', schema: moveWorkspacesBody },
    params: [account('required', 'SOURCE account; target in body')],
  },
  {
    name: 'DeleteUsersByEmail',
    description: 'Airtable enterprise: delete users by email.',
    method: 'DELETE',
    path: `${accounts}/users`,
    auth: userWrite,
    params: [account(), query('email_addresses', 'email', emails, '')],
  },
  {
    name: 'GetGridUserInfo',
    description: 'Airtable enterprise: look up users by ids or emails.',
    method: 'GET',
    path: `${accounts}/users`,
    auth: userRead,
    params: [
      account(),
      userInclude,
      query('user_emails', 'email', emails, ''),
      query('user_ids', 'id', strings, 'usr…'),
    ],
  },
  {
    name: 'BatchManageEnterpriseUsers',
    description: 'Airtable enterprise: update several users (state, email, name) at once.',
    method: 'PATCH',
    path: `${accounts}/users`,
    auth: userWrite,
    body: { kind: 'mode', schema: manageUsersBody },
    params: [account('required')],
  },
  {
    name: 'BatchManageUserMembership',
    description: 'Airtable enterprise: make users managed or unmanaged members of the organization.',
    method: 'POST',
    path: `${accounts}/users/claim`,
    auth: userWrite,
    body: { kind: 'mode', schema: claimUsersBody },
    params: [account('required')],
  },
  {
    name: 'GrantAdminAccess',
    description: 'Airtable enterprise: make users admins, by user id or email.',
    method: 'POST',
    path: `${accounts}/users/grantAdminAccess`,
    auth: userWrite,
    body: { kind: 'mode', schema: grantAdminAccessBody },
    params: [account('required')],
  },
  {
    name: 'RevokeAdminAccess',
    description: "Airtable enterprise: revoke users' admin access, by user id or email.",
    method: 'POST',
    path: `${accounts}/users/revokeAdminAccess`,
    auth: userWrite,
    hints: { destructive: true },
    body: { kind: 'mode', schema: revokeAdminAccessBody },
    params: [account('required')],
  },
  {
    name: 'DeleteEnterpriseUser',
    description: 'Airtable enterprise: delete one user.',
    method: 'DELETE',
    path: `${accounts}/users/{userId}`,
    auth: userWrite,
    params: [account(), userId],
  },
  {
    name: 'GetUserInformation',
    description: 'Airtable enterprise: get one user with their collaborations.',
    method: 'GET',
    path: `${accounts}/users/{userId}`,
    auth: userRead,
    params: [account(), userId, userInclude],
  },
  {
    name: 'ManageEnterpriseAccountUser',
    description: "Airtable enterprise: update a user's email, name or state.",
    method: 'PATCH',
    path: `${accounts}/users/{userId}`,
    auth: userWrite,
    body: { kind: 'fields' },
    params: [
      account(),
      userId,
      {
        name: 'update_user_email',
        in: 'body',
        bodyPath: 'email',
        schema: { type: 'string', format: 'email' },
        description: 'Old and new domain enterprise-owned',
      },
      {
        name: 'user_first_name',
        in: 'body',
        bodyPath: 'firstName',
        schema: { type: 'string' },
        description: '',
      },
      {
        name: 'user_last_name',
        in: 'body',
        bodyPath: 'lastName',
        schema: { type: 'string' },
        description: '',
      },
      {
        name: 'user_state',
        in: 'body',
        bodyPath: 'state',
        schema: { type: 'string', enum: ['provisioned', 'deactivated'] },
        description: 'Managed users only',
      },
    ],
  },
  {
    name: 'LogoutEnterpriseUser',
    description: 'Airtable enterprise: log a user out of all sessions.',
    method: 'POST',
    path: `${accounts}/users/{userId}/logout`,
    auth: userWrite,
    body: { kind: 'fields' },
    params: [
      account(),
      pathId('enterprise_user_id', 'userId', idOf('usr')),
      {
        name: 'logout_request_body',
        in: 'body',
        // The spec's JSON parameter is the request body itself; Airtable defines no fields in
        // it today, so `{}` is sent when it is left out.
        wholeBody: true,
        schema: { type: 'object' },
        description: 'Usually omitted.',
      },
    ],
  },
  {
    name: 'RemoveUserFromEnterprise',
    description:
      'Airtable enterprise: offboard a user: unshare from all enterprise bases and workspaces; revokes admin.',
    method: 'POST',
    path: `${accounts}/users/{userId}/remove`,
    auth: userWrite,
    hints: { destructive: true },
    body: { kind: 'mode', schema: removeUserBody },
    params: [account('required'), pathId('user_id', 'userId', idOf('usr'), 'required')],
  },
  {
    name: 'GetUserGroupInfo',
    description: 'Airtable: get a user group with its members.',
    method: 'GET',
    path: '/meta/groups/{groupId}',
    auth: gridAuth('enterprise.groups:read'),
    params: [
      pathId('user_group_id', 'groupId', idOf('ugp')),
      query(
        'include_additional_info',
        'include',
        { type: 'array', items: { type: 'string', enum: ['collaborations'] } },
        '',
      ),
    ],
  },
  {
    name: 'RetrieveUserIdAndScopes',
    description: "Airtable: who am I: the token's user id, scopes and email (if granted).",
    method: 'GET',
    path: '/meta/whoami',
    // Airtable needs no scope for whoami.
    auth: gridAuth(),
  },
];
