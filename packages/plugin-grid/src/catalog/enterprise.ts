import { type JsonSchema, type ParamDeclaration, type ToolDeclaration, WHOLE_BODY } from '@toolhost/core';
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

const toolSet = 'GridApi';
const accounts = '/meta/enterpriseAccounts/{enterpriseAccountId}';

const accountRead = gridAuth('enterprise.account:read');
const accountWrite = gridAuth('enterprise.account:write');
const auditLogsRead = gridAuth('enterprise.auditLogs:read');
const exportsManage = gridAuth('enterprise.exports:manage');
const userRead = gridAuth('enterprise.user:read');
const userWrite = gridAuth('enterprise.user:write');

/** An id in the path: required, or (x) in a mode tool. */
function pathId(name: string, as: string, description: string, mode?: 'x'): ParamDeclaration {
  return {
    name,
    in: 'path',
    as,
    schema: { type: 'string' },
    description,
    ...(mode ? { mode } : { required: true }),
  };
}

/** The enterprise account in the path; mode tools take it as an (x) parameter. */
function account(mode?: 'x', description = 'Enterprise account id (ent...).'): ParamDeclaration {
  return pathId('enterprise_account_id', 'enterpriseAccountId', description, mode);
}

function query(name: string, as: string, schema: JsonSchema, description: string): ParamDeclaration {
  return { name, in: 'query', as, schema, description };
}

const strings: JsonSchema = { type: 'array', items: { type: 'string' } };
const emails: JsonSchema = { type: 'array', items: { type: 'string', format: 'email' } };
const dateTime: JsonSchema = { type: 'string', format: 'date-time' };

/** Airtable's `include` values for enterprise users. */
const userInclude = query(
  'include_fields',
  'include',
  { type: 'array', items: { type: 'string', enum: ['collaborations', 'aggregated', 'descendants'] } },
  'Extra data to include.',
);

const userId = pathId('user_id', 'userId', 'User id (usr...).');

export const enterpriseTools: ToolDeclaration[] = [
  {
    toolSet,
    name: 'GetEnterpriseInfo',
    description: 'Get an enterprise account.',
    method: 'GET',
    path: accounts,
    auth: accountRead,
    params: [
      account(),
      query(
        'fields_to_include',
        'include',
        { type: 'array', items: { type: 'string', enum: ['aggregated', 'descendants'] } },
        'Extra data to include.',
      ),
    ],
  },
  {
    toolSet,
    name: 'GetAuditLogEvents',
    description: 'List audit log events of an enterprise account.',
    method: 'GET',
    path: `${accounts}/auditLogEvents`,
    auth: auditLogsRead,
    params: [
      account(),
      query('end_time', 'endTime', dateTime, 'Latest event time.'),
      query('event_category', 'category', { type: 'string' }, 'Event category, e.g. user.'),
      query('event_type', 'eventType', { type: 'string' }, 'Event type, e.g. createBase.'),
      query('filter_by_originating_user_id', 'originatingUserId', { type: 'string' }, 'Acting user id.'),
      query('model_identifier', 'modelId', { type: 'string' }, 'Id of the model acted on.'),
      query('next_page_token', 'next', { type: 'string' }, 'Next-page cursor.'),
      query('page_size', 'pageSize', { type: 'number', maximum: 1000 }, 'Events per page.'),
      query('previous_event_marker', 'previous', { type: 'string' }, 'Previous-page cursor.'),
      query('sort_order', 'sortOrder', { type: 'string', enum: ['ascending', 'descending'] }, 'By time.'),
      query('start_time', 'startTime', dateTime, 'Earliest event time.'),
    ],
  },
  {
    toolSet,
    name: 'RetrieveAuditLogRequests',
    description: 'List the audit log requests of an enterprise account.',
    method: 'GET',
    path: `${accounts}/auditLogs`,
    auth: auditLogsRead,
    params: [
      account(),
      query('audit_log_page_size', 'pageSize', { type: 'number', maximum: 100 }, 'Requests per page.'),
      query('pagination_offset', 'offset', { type: 'number' }, 'Paging offset.'),
    ],
  },
  {
    toolSet,
    name: 'CreateAuditLogRequest',
    description: 'Request an audit log export for a time period.',
    method: 'POST',
    path: `${accounts}/auditLogs`,
    auth: auditLogsRead,
    body: { kind: 'mode', schema: createAuditLogRequestBody },
    params: [account('x')],
  },
  {
    toolSet,
    name: 'RetrieveAuditLog',
    description: 'Get one audit log request and its status.',
    method: 'GET',
    path: `${accounts}/auditLogs/{enterpriseAuditLogTaskId}`,
    auth: auditLogsRead,
    params: [
      pathId('audit_log_task_id', 'enterpriseAuditLogTaskId', 'Audit log task id (eal...).'),
      account(),
    ],
  },
  {
    toolSet,
    name: 'GetGridChangeEvents',
    description: 'List change events of an enterprise account.',
    method: 'GET',
    path: `${accounts}/changeEvents`,
    auth: gridAuth('enterprise.changeEvents:read'),
    params: [
      account(),
      query('end_time', 'endTime', dateTime, 'Latest event time.'),
      query('page_size_limit', 'pageSize', { type: 'number', maximum: 100 }, 'Events per page.'),
      query('pagination_offset', 'offset', { type: 'string' }, 'Paging offset.'),
      query('start_time', 'startTime', dateTime, 'Earliest event time.'),
    ],
  },
  {
    toolSet,
    name: 'CreateDescendantEnterpriseAccount',
    description: 'Create a descendant enterprise account under a root account.',
    method: 'POST',
    path: `${accounts}/descendants`,
    auth: accountWrite,
    body: { kind: 'mode', schema: createDescendantBody },
    params: [account('x', 'Root account id (Enterprise Hub).')],
  },
  {
    toolSet,
    name: 'GetEdiscoveryExportsStatus',
    description: 'List the eDiscovery exports of an enterprise account.',
    method: 'GET',
    path: `${accounts}/exports`,
    auth: exportsManage,
    params: [
      account(),
      query(
        'ediscovery_export_state',
        'state',
        { type: 'string', enum: ['pending', 'processing', 'error', 'done'] },
        'Only exports in this state.',
      ),
      query('pagination_offset', 'offset', { type: 'number' }, 'Paging offset.'),
      query('result_page_size', 'pageSize', { type: 'number', maximum: 100 }, 'Exports per page.'),
    ],
  },
  {
    toolSet,
    name: 'CreateEdiscoveryExport',
    description: 'Start an eDiscovery export of a base.',
    method: 'POST',
    path: `${accounts}/exports`,
    auth: exportsManage,
    body: { kind: 'mode', schema: createEdiscoveryExportBody },
    params: [account('x')],
  },
  {
    toolSet,
    name: 'GetEdiscoveryExportStatus',
    description: 'Get one eDiscovery export and its state.',
    method: 'GET',
    path: `${accounts}/exports/{enterpriseTaskId}`,
    auth: exportsManage,
    params: [account(), pathId('enterprise_task_id', 'enterpriseTaskId', 'Export task id (etk...).')],
  },
  {
    toolSet,
    name: 'BatchMoveUserGroupsBetweenAccounts',
    // Airtable's path holds the account the groups move from; the destination is the body's
    // targetEnterpriseAccountId. The spec names the only id parameter as the target, so the
    // name stays and the description says where each id goes.
    description:
      'Move user groups between enterprise accounts. target_enterprise_account_id is the SOURCE; target in body.',
    method: 'POST',
    path: `${accounts}/moveGroups`,
    auth: gridAuth('enterprise.groups:manage'),
    body: { kind: 'mode', schema: moveGroupsBody },
    params: [
      pathId('target_enterprise_account_id', 'enterpriseAccountId', 'Account the groups move from.', 'x'),
    ],
  },
  {
    toolSet,
    name: 'MoveWorkspacesBetweenEnterpriseAccounts',
    // As for moveGroups: the path is the source account, the destination is in the body
    // (targetEnterpriseAccountId), although the spec calls enterprise_account_id the destination.
    description:
      'Move workspaces between enterprise accounts. enterprise_account_id is the SOURCE; target in body.',
    method: 'POST',
    path: `${accounts}/moveWorkspaces`,
    auth: gridAuth('workspacesAndBases:manage'),
    body: { kind: 'mode', schema: moveWorkspacesBody },
    params: [account('x', 'Account the workspaces move from.')],
  },
  {
    toolSet,
    name: 'DeleteUsersByEmail',
    description: 'Delete enterprise users by email.',
    method: 'DELETE',
    path: `${accounts}/users`,
    auth: userWrite,
    params: [account(), query('email_addresses', 'email', emails, 'Emails of the users to delete.')],
  },
  {
    toolSet,
    name: 'GetGridUserInfo',
    description: 'Get enterprise users by id or email.',
    method: 'GET',
    path: `${accounts}/users`,
    auth: userRead,
    params: [
      account(),
      userInclude,
      query('user_emails', 'email', emails, 'User emails.'),
      query('user_ids', 'id', strings, 'User ids (usr...).'),
    ],
  },
  {
    toolSet,
    name: 'BatchManageEnterpriseUsers',
    description: 'Update several enterprise users.',
    method: 'PATCH',
    path: `${accounts}/users`,
    auth: userWrite,
    body: { kind: 'mode', schema: manageUsersBody },
    params: [account('x')],
  },
  {
    toolSet,
    name: 'BatchManageUserMembership',
    description: 'Make users managed or unmanaged members of the organization.',
    method: 'POST',
    path: `${accounts}/users/claim`,
    auth: userWrite,
    body: { kind: 'mode', schema: claimUsersBody },
    params: [account('x')],
  },
  {
    toolSet,
    name: 'GrantAdminAccess',
    description: 'Make users enterprise admins, by id or email.',
    method: 'POST',
    path: `${accounts}/users/grantAdminAccess`,
    auth: userWrite,
    body: { kind: 'mode', schema: grantAdminAccessBody },
    params: [account('x')],
  },
  {
    toolSet,
    name: 'RevokeAdminAccess',
    description: 'Revoke enterprise admin access from users, by id or email.',
    method: 'POST',
    path: `${accounts}/users/revokeAdminAccess`,
    auth: userWrite,
    hints: { destructive: true },
    body: { kind: 'mode', schema: revokeAdminAccessBody },
    params: [account('x')],
  },
  {
    toolSet,
    name: 'DeleteEnterpriseUser',
    description: 'Delete an enterprise user.',
    method: 'DELETE',
    path: `${accounts}/users/{userId}`,
    auth: userWrite,
    params: [account(), userId],
  },
  {
    toolSet,
    name: 'GetUserInformation',
    description: 'Get one enterprise user.',
    method: 'GET',
    path: `${accounts}/users/{userId}`,
    auth: userRead,
    params: [account(), userId, userInclude],
  },
  {
    toolSet,
    name: 'ManageEnterpriseAccountUser',
    description: "Update an enterprise user's email, name or state.",
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
        as: 'email',
        schema: { type: 'string', format: 'email' },
        description: 'New email; both domains enterprise-owned.',
      },
      {
        name: 'user_first_name',
        in: 'body',
        as: 'firstName',
        schema: { type: 'string' },
        description: 'First name.',
      },
      {
        name: 'user_last_name',
        in: 'body',
        as: 'lastName',
        schema: { type: 'string' },
        description: 'Last name.',
      },
      {
        name: 'user_state',
        in: 'body',
        as: 'state',
        schema: { type: 'string', enum: ['provisioned', 'deactivated'] },
        description: 'Managed users only.',
      },
    ],
  },
  {
    toolSet,
    name: 'LogoutEnterpriseUser',
    description: 'Log an enterprise user out of all sessions.',
    method: 'POST',
    path: `${accounts}/users/{userId}/logout`,
    auth: userWrite,
    body: { kind: 'fields' },
    params: [
      account(),
      pathId('enterprise_user_id', 'userId', 'User id (usr...).'),
      {
        name: 'logout_request_body',
        in: 'body',
        // The spec's JSON parameter is the request body itself; Airtable defines no fields in
        // it today, so `{}` is sent when it is left out.
        as: WHOLE_BODY,
        schema: { type: 'object' },
        description: 'JSON body; usually omitted.',
      },
    ],
  },
  {
    toolSet,
    name: 'RemoveUserFromEnterprise',
    description: 'Unshare a user from all enterprise assets; revokes admin access.',
    method: 'POST',
    path: `${accounts}/users/{userId}/remove`,
    auth: userWrite,
    hints: { destructive: true },
    body: { kind: 'mode', schema: removeUserBody },
    params: [account('x'), pathId('user_id', 'userId', 'User id (usr...).', 'x')],
  },
  {
    toolSet,
    name: 'GetUserGroupInfo',
    description: 'Get a user group with its members.',
    method: 'GET',
    path: '/meta/groups/{groupId}',
    auth: gridAuth('enterprise.groups:read'),
    params: [
      pathId('user_group_id', 'groupId', 'User group id (ugp...).'),
      query(
        'include_additional_info',
        'include',
        { type: 'array', items: { type: 'string', enum: ['collaborations'] } },
        'Extra data to include.',
      ),
    ],
  },
  {
    toolSet,
    name: 'RetrieveUserIdAndScopes',
    description: "Get the current user's id, scopes and (if granted) email.",
    method: 'GET',
    path: '/meta/whoami',
    // Airtable needs no scope for whoami.
    auth: gridAuth(),
  },
];
