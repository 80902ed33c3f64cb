import type { ExecuteOnly, ParamDeclaration, ToolDeclaration } from '@toolhost/core';
import {
  createScimGroupBody,
  createScimUserBody,
  patchScimGroupBody,
  patchScimUserBody,
  replaceScimGroupBody,
  replaceScimUserBody,
} from '../schemas/scim-webhooks.generated.js';
import { gridAuth } from './auth.js';
import { pathId } from './params.js';

// SCIM provisioning lives on its own host (https://airtable.com/scim/v2).
const server = 'scim';
const auth = gridAuth('enterprise.scim.usersAndGroups:manage');

function groupId(name: string, executeOnly?: ExecuteOnly): ParamDeclaration {
  return pathId(name, 'groupId', '', executeOnly);
}

function userId(name: string, executeOnly?: ExecuteOnly): ParamDeclaration {
  return pathId(name, 'userId', '', executeOnly);
}

export const scimTools: ToolDeclaration[] = [
  {
    name: 'ListScimGroups',
    description: 'Airtable SCIM: list all enterprise groups, filterable.',
    method: 'GET',
    path: '/Groups',
    server,
    auth,
    params: [
      {
        name: 'filter_criteria',
        in: 'query',
        apiName: 'filter',
        schema: { type: 'string' },
        description: 'e.g. displayName eq "Ops"',
      },
      {
        name: 'group_count',
        in: 'query',
        apiName: 'count',
        schema: { type: 'integer', minimum: 0 },
        description: 'Max to return.',
      },
    ],
  },
  {
    name: 'CreateScimGroup',
    description: 'Airtable SCIM: provision a group, without members.',
    method: 'POST',
    path: '/Groups',
    server,
    auth,
    body: { kind: 'mode', schema: createScimGroupBody },
  },
  {
    name: 'DeleteScimGroup',
    description: 'Airtable SCIM: deprovision (delete) a group.',
    method: 'DELETE',
    path: '/Groups/{groupId}',
    server,
    auth,
    params: [groupId('group_id')],
  },
  {
    name: 'FetchScimGroup',
    description: 'Airtable SCIM: get one group with its members.',
    method: 'GET',
    path: '/Groups/{groupId}',
    server,
    auth,
    params: [groupId('scim_group_id')],
  },
  {
    name: 'UpdateGroupDetails',
    description: 'Airtable SCIM: patch a group (rename, add or remove members).',
    method: 'PATCH',
    path: '/Groups/{groupId}',
    server,
    auth,
    body: { kind: 'mode', schema: patchScimGroupBody },
    params: [groupId('group_id', 'required')],
  },
  {
    name: 'UpdateGroupAttributes',
    description: 'Airtable SCIM: replace a group (name and whole member list).',
    method: 'PUT',
    path: '/Groups/{groupId}',
    server,
    auth,
    body: { kind: 'mode', schema: replaceScimGroupBody },
    params: [groupId('group_id', 'required')],
  },
  {
    name: 'ListScimUsers',
    description: 'Airtable SCIM: list all provisioned users, filterable (e.g. by userName).',
    method: 'GET',
    path: '/Users',
    server,
    auth,
    params: [
      {
        name: 'start_index',
        in: 'query',
        apiName: 'startIndex',
        schema: { type: 'integer', minimum: 1 },
        description: '',
      },
      {
        name: 'user_count_limit',
        in: 'query',
        apiName: 'count',
        schema: { type: 'integer', minimum: 0 },
        description: '',
      },
      {
        name: 'user_filter',
        in: 'query',
        apiName: 'filter',
        schema: { type: 'string' },
        description: 'e.g. userName eq "a@b.co"',
      },
    ],
  },
  {
    name: 'CreateScimUser',
    description: 'Airtable SCIM: provision a user.',
    method: 'POST',
    path: '/Users',
    server,
    auth,
    body: { kind: 'mode', schema: createScimUserBody },
  },
  {
    name: 'DeleteScimUser',
    description:
      "Airtable SCIM: deprovision (delete) a user; not the token's admin or a shared workspace's sole owner.",
    method: 'DELETE',
    path: '/Users/{userId}',
    server,
    auth,
    params: [userId('scim_user_id')],
  },
  {
    name: 'GetScimUser',
    description: 'Airtable SCIM: get one user.',
    method: 'GET',
    path: '/Users/{userId}',
    server,
    auth,
    params: [userId('user_id')],
  },
  {
    name: 'UpdateScimUserRecord',
    description: 'Airtable SCIM: patch a user (e.g. deactivate, rename).',
    method: 'PATCH',
    path: '/Users/{userId}',
    server,
    auth,
    body: { kind: 'mode', schema: patchScimUserBody },
    params: [userId('user_id', 'required')],
  },
  {
    name: 'UpdateUserAttributes',
    description: "Airtable SCIM: replace all of a user's attributes.",
    method: 'PUT',
    path: '/Users/{userId}',
    server,
    auth,
    body: { kind: 'mode', schema: replaceScimUserBody },
    params: [userId('user_id', 'required')],
  },
];
