import { catalogSuite, type RequestCase } from '@toolhost/testing';
import { describe, expect, it } from 'vitest';
import { scimTools } from '../src/catalog/scim.js';
import { webhookTools } from '../src/catalog/webhooks.js';
import * as schemas from '../src/schemas/scim-webhooks.generated.js';
import { suiteOptions } from './suite-options.js';

const BASE = 'appA1b2C3d4E5f6G7';
const HOOK = 'achZ9y8X7w6V5u4T3';
const GROUP = 'ugpQ1w2E3r4T5y6U7';
const USER = 'usrM1n2B3v4C5x6Z7';

const SCIM_GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const SCIM_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const SCIM_PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const newGroup = { schemas: [SCIM_GROUP], displayName: 'Ops' };
const groupPatch = {
  schemas: [SCIM_PATCH],
  Operations: [{ op: 'add', path: 'members', value: [{ value: USER }] }],
};
const groupReplace = { schemas: [SCIM_GROUP], displayName: 'Ops team', members: [{ value: USER }] };
const newUser = {
  schemas: [SCIM_USER],
  userName: 'ada@example.com',
  name: { givenName: 'Ada', familyName: 'Lovelace' },
};
const userPatch = { schemas: [SCIM_PATCH], Operations: [{ op: 'replace', path: 'active', value: false }] };
const webhookSpec = {
  notificationUrl: 'https://hooks.example.com/grid',
  specification: { options: { filters: { dataTypes: ['tableData'] } } },
};

const cases: RequestCase[] = [
  {
    tool: 'ListScimGroups',
    args: { filter_criteria: 'displayName eq "Ops"', group_count: 10 },
    method: 'GET',
    path: '/scim/Groups',
    query: [
      ['filter', 'displayName eq "Ops"'],
      ['count', '10'],
    ],
  },
  {
    tool: 'CreateScimGroup',
    args: { mode: 'execute', request_body: JSON.stringify(newGroup) },
    method: 'POST',
    path: '/scim/Groups',
    body: newGroup,
  },
  {
    tool: 'DeleteScimGroup',
    args: { group_id: GROUP },
    method: 'DELETE',
    path: `/scim/Groups/${GROUP}`,
  },
  {
    tool: 'FetchScimGroup',
    args: { scim_group_id: GROUP },
    method: 'GET',
    path: `/scim/Groups/${GROUP}`,
  },
  {
    tool: 'UpdateGroupDetails',
    args: { mode: 'execute', group_id: GROUP, request_body: JSON.stringify(groupPatch) },
    method: 'PATCH',
    path: `/scim/Groups/${GROUP}`,
    body: groupPatch,
  },
  {
    tool: 'UpdateGroupAttributes',
    args: { mode: 'execute', group_id: GROUP, request_body: JSON.stringify(groupReplace) },
    method: 'PUT',
    path: `/scim/Groups/${GROUP}`,
    body: groupReplace,
  },
  {
    tool: 'ListScimUsers',
    args: { start_index: 101, user_count_limit: 50, user_filter: 'userName eq "ada@example.com"' },
    method: 'GET',
    path: '/scim/Users',
    query: [
      ['startIndex', '101'],
      ['count', '50'],
      ['filter', 'userName eq "ada@example.com"'],
    ],
  },
  {
    tool: 'CreateScimUser',
    args: { mode: 'execute', request_body: JSON.stringify(newUser) },
    method: 'POST',
    path: '/scim/Users',
    body: newUser,
  },
  {
    tool: 'DeleteScimUser',
    args: { scim_user_id: USER },
    method: 'DELETE',
    path: `/scim/Users/${USER}`,
  },
  {
    tool: 'GetScimUser',
    args: { user_id: USER },
    method: 'GET',
    path: `/scim/Users/${USER}`,
  },
  {
    tool: 'UpdateScimUserRecord',
    args: { mode: 'execute', user_id: USER, request_body: JSON.stringify(userPatch) },
    method: 'PATCH',
    path: `/scim/Users/${USER}`,
    body: userPatch,
  },
  {
    tool: 'UpdateUserAttributes',
    args: { mode: 'execute', user_id: USER, request_body: JSON.stringify({ ...newUser, active: true }) },
    method: 'PUT',
    path: `/scim/Users/${USER}`,
    body: { ...newUser, active: true },
  },
  {
    tool: 'ListWebhooksForBase',
    args: { base_identifier: BASE },
    method: 'GET',
    path: `/bases/${BASE}/webhooks`,
  },
  {
    tool: 'CreateGridWebhook',
    args: { mode: 'execute', base_id: BASE, request_body: JSON.stringify(webhookSpec) },
    method: 'POST',
    path: `/bases/${BASE}/webhooks`,
    body: webhookSpec,
  },
  {
    tool: 'DeleteGridWebhook',
    args: { grid_base_id: BASE, webhook_id: HOOK },
    method: 'DELETE',
    path: `/bases/${BASE}/webhooks/${HOOK}`,
  },
  {
    tool: 'ToggleWebhookNotifications',
    args: {
      mode: 'execute',
      grid_base_id: BASE,
      webhook_id: HOOK,
      request_body: JSON.stringify({ enable: false }),
    },
    method: 'POST',
    path: `/bases/${BASE}/webhooks/${HOOK}/enableNotifications`,
    body: { enable: false },
  },
  {
    tool: 'ListWebhookPayloads',
    args: { base_id: BASE, webhook_id: HOOK, maximum_number_of_messages: 50, pagination_cursor: 7 },
    method: 'GET',
    path: `/bases/${BASE}/webhooks/${HOOK}/payloads`,
    query: [
      ['limit', '50'],
      ['cursor', '7'],
    ],
  },
  {
    tool: 'RefreshWebhookLifespan',
    args: { base_identifier: BASE, webhook_id: HOOK, webhook_request_body: { extend: true } },
    method: 'POST',
    path: `/bases/${BASE}/webhooks/${HOOK}/refresh`,
    body: { extend: true },
  },
];

const modeSchemas: Record<string, unknown> = {
  CreateScimGroup: schemas.createScimGroupBody,
  UpdateGroupDetails: schemas.patchScimGroupBody,
  UpdateGroupAttributes: schemas.replaceScimGroupBody,
  CreateScimUser: schemas.createScimUserBody,
  UpdateScimUserRecord: schemas.patchScimUserBody,
  UpdateUserAttributes: schemas.replaceScimUserBody,
  CreateGridWebhook: schemas.createWebhookBody,
  ToggleWebhookNotifications: schemas.enableWebhookNotificationsBody,
};

const requiredParams: Record<string, string[]> = {
  ListScimGroups: [],
  DeleteScimGroup: ['group_id'],
  FetchScimGroup: ['scim_group_id'],
  ListScimUsers: [],
  DeleteScimUser: ['scim_user_id'],
  GetScimUser: ['user_id'],
  ListWebhooksForBase: ['base_identifier'],
  DeleteGridWebhook: ['grid_base_id', 'webhook_id'],
  ListWebhookPayloads: ['base_id', 'webhook_id'],
  RefreshWebhookLifespan: ['base_identifier', 'webhook_id'],
  ...Object.fromEntries(Object.keys(modeSchemas).map((t) => [t, ['mode']])),
};

const api = catalogSuite({
  ...suiteOptions,
  toolSetConfig: (url) => ({ baseUrls: { scim: `${url}/scim`, content: `${url}/content` } }),
});
const { call } = api;

describe('GridApi SCIM and webhook declarations', () => {
  it('declares 12 SCIM and 6 webhook tools', () => {
    expect(scimTools).toHaveLength(12);
    expect(webhookTools).toHaveLength(6);
    expect(cases.map((c) => c.tool).sort()).toEqual(
      [...scimTools, ...webhookTools].map((t) => t.name).sort(),
    );
  });

  it('SCIM tools use the scim server; every webhook tool sends its base id as baseId (the pacing key)', () => {
    for (const t of scimTools) expect(t.server, t.name).toBe('scim');
    for (const t of webhookTools) {
      expect(t.server ?? 'default', t.name).toBe('default');
      expect(
        t.params?.some((p) => p.in === 'path' && p.apiName === 'baseId'),
        t.name,
      ).toBe(true);
    }
  });

  it('every tool authorizes through grid-auth-provider with the endpoint scope', () => {
    for (const t of scimTools)
      expect(t.auth).toEqual({
        kind: 'provider',
        provider: 'grid-auth-provider',
        scopes: ['enterprise.scim.usersAndGroups:manage'],
      });
    for (const t of webhookTools)
      expect(t.auth).toEqual({
        kind: 'provider',
        provider: 'grid-auth-provider',
        scopes: ['webhook:manage'],
      });
  });
});

describe('GridApi SCIM and webhooks over MCP', () => {
  api.itListsTools(
    'lists the 18 tools with their required parameters',
    {
      required: requiredParams,
      hints: { ListScimUsers: { readOnlyHint: true }, DeleteGridWebhook: { destructiveHint: true } },
      properties: { ToggleWebhookNotifications: ['mode', 'request_body', 'grid_base_id', 'webhook_id'] },
    },
    () => {
      expect(Object.keys(requiredParams)).toHaveLength(18);
    },
  );

  api.itSendsRequests(cases);

  it('RefreshWebhookLifespan sends an empty JSON body when webhook_request_body is left out', async () => {
    const result = await call('RefreshWebhookLifespan', { base_identifier: BASE, webhook_id: HOOK });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(api.upstream.requests[0]!.body).toEqual({});
  });

  api.itReturnsRequestSchemas(modeSchemas);

  it('keeps ../ and ? inside their path segment (percent-encoded)', async () => {
    const result = await call('ListWebhookPayloads', { base_id: `${BASE}/../x`, webhook_id: 'ach?limit=1' });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(api.upstream.requests).toHaveLength(1);
    const req = api.upstream.requests[0]!;
    expect(req.rawPath).toBe(`/bases/${BASE}%2F..%2Fx/webhooks/ach%3Flimit%3D1/payloads`);
    expect(req.query).toEqual([]);
  });

  it('keeps ../ inside the SCIM user segment', async () => {
    const result = await call('GetScimUser', { user_id: '../Groups' });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(api.upstream.requests[0]!.rawPath).toBe('/scim/Users/..%2FGroups');
  });
});

describe('GridApi SCIM and webhooks bad input', () => {
  api.itRejectsBadInput([
    ['missing required group id', 'DeleteScimGroup', {}, /'group_id' is required/],
    ['missing required webhook id', 'DeleteGridWebhook', { grid_base_id: BASE }, /'webhook_id' is required/],
    [
      'missing (x) webhook id in execute',
      'ToggleWebhookNotifications',
      { mode: 'execute', grid_base_id: BASE, request_body: '{"enable":true}' },
      /'webhook_id' is required when mode is execute/,
    ],
    [
      'missing (x) base id in execute',
      'CreateGridWebhook',
      { mode: 'execute', request_body: JSON.stringify(webhookSpec) },
      /'base_id' is required when mode is execute/,
    ],
    // A string of an integer's digits stands for it (an id past 2^53 comes as one); a word does not.
    [
      'a word for a number',
      'ListScimUsers',
      { start_index: 'first' },
      /'start_index' must be of type integer/,
    ],
    ['fractional count', 'ListScimGroups', { group_count: 2.5 }, /'group_count' must be of type integer/],
    [
      'payload page size over 50',
      'ListWebhookPayloads',
      { base_id: BASE, webhook_id: HOOK, maximum_number_of_messages: 51 },
      /'maximum_number_of_messages' must be <= 50/,
    ],
    [
      'non-object webhook_request_body',
      'RefreshWebhookLifespan',
      { base_identifier: BASE, webhook_id: HOOK, webhook_request_body: '{}' },
      /'webhook_request_body' must be of type object/,
    ],
    [
      'invalid JSON request_body',
      'CreateScimGroup',
      { mode: 'execute', request_body: '{"displayName": ' },
      /request_body' is not valid JSON/,
    ],
    [
      'schema-violating patch operation',
      'UpdateGroupDetails',
      {
        mode: 'execute',
        group_id: GROUP,
        request_body: JSON.stringify({
          schemas: [SCIM_PATCH],
          Operations: [{ op: 'merge', path: 'members' }],
        }),
      },
      /request_body\.Operations\[0\]\.op must be one of/,
    ],
    [
      'non-boolean enable',
      'ToggleWebhookNotifications',
      { mode: 'execute', grid_base_id: BASE, webhook_id: HOOK, request_body: '{"enable":"yes"}' },
      /request_body\.enable must be of type boolean/,
    ],
    [
      'user without userName',
      'CreateScimUser',
      { mode: 'execute', request_body: JSON.stringify({ schemas: [SCIM_USER] }) },
      /request_body\.userName is required/,
    ],
    [
      'dot-dot path value',
      'FetchScimGroup',
      { scim_group_id: '..' },
      /'scim_group_id' must be a non-empty identifier/,
    ],
    ['empty path value', 'GetScimUser', { user_id: '' }, /'user_id'/],
    ['unknown parameter', 'GetScimUser', { user_id: USER, userId: USER }, /Unknown parameter 'userId'/],
  ]);
});
