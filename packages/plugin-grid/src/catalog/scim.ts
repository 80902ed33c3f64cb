import type { ParamDeclaration, ToolDeclaration } from '@toolhost/core';
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

const toolSet = 'GridApi';
// SCIM provisioning lives on its own host (https://airtable.com/scim/v2).
const server = 'scim';
const auth = gridAuth('enterprise.scim.usersAndGroups:manage');

function groupId(name: string, mode?: 'x'): ParamDeclaration {
  return pathId(name, 'groupId', '', mode);
}

function userId(name: string, mode?: 'x'): ParamDeclaration {
  return pathId(name, 'userId', '', mode);
}

export const scimTools: ToolDeclaration[] = [
  {
    toolSet,
    name: 'ListScimGroups',
    description: 'Enterprise SCIM groups.',
    method: 'GET',
    path: '/Groups',
    server,
    auth,
    params: [
      {
        name: 'filter_criteria',
        in: 'query',
        as: 'filter',
        schema: { type: 'string' },
        description: 'e.g. displayName eq "Ops"',
      },
      {
        name: 'group_count',
        in: 'query',
        as: 'count',
        schema: { type: 'integer', minimum: 0 },
        description: 'Max to return.',
      },
    ],
  },
  {
    toolSet,
    name: 'CreateScimGroup',
    description: 'Create a SCIM group without members.',
    method: 'POST',
    path: '/Groups',
    server,
    auth,
    body: { kind: 'mode', schema: createScimGroupBody },
  },
  {
    toolSet,
    name: 'DeleteScimGroup',
    description: 'Delete a SCIM group.',
    method: 'DELETE',
    path: '/Groups/{groupId}',
    server,
    auth,
    params: [groupId('group_id')],
  },
  {
    toolSet,
    name: 'FetchScimGroup',
    description: 'One SCIM group with its members.',
    method: 'GET',
    path: '/Groups/{groupId}',
    server,
    auth,
    params: [groupId('scim_group_id')],
  },
  {
    toolSet,
    name: 'UpdateGroupDetails',
    description: 'SCIM patch of a group (name, members).',
    method: 'PATCH',
    path: '/Groups/{groupId}',
    server,
    auth,
    body: { kind: 'mode', schema: patchScimGroupBody },
    params: [groupId('group_id', 'x')],
  },
  {
    toolSet,
    name: 'UpdateGroupAttributes',
    description: 'Replace a SCIM group (name, members).',
    method: 'PUT',
    path: '/Groups/{groupId}',
    server,
    auth,
    body: { kind: 'mode', schema: replaceScimGroupBody },
    params: [groupId('group_id', 'x')],
  },
  {
    toolSet,
    name: 'ListScimUsers',
    description: 'Enterprise SCIM users.',
    method: 'GET',
    path: '/Users',
    server,
    auth,
    params: [
      {
        name: 'start_index',
        in: 'query',
        as: 'startIndex',
        schema: { type: 'integer', minimum: 1 },
        description: '',
      },
      {
        name: 'user_count_limit',
        in: 'query',
        as: 'count',
        schema: { type: 'integer', minimum: 0 },
        description: '',
      },
      {
        name: 'user_filter',
        in: 'query',
        as: 'filter',
        schema: { type: 'string' },
        description: 'e.g. userName eq "a@b.co"',
      },
    ],
  },
  {
    toolSet,
    name: 'CreateScimUser',
    description: 'Provision a SCIM user.',
    method: 'POST',
    path: '/Users',
    server,
    auth,
    body: { kind: 'mode', schema: createScimUserBody },
  },
  {
    toolSet,
    name: 'DeleteScimUser',
    description: "Not for the token's admin or a shared workspace's sole owner.",
    method: 'DELETE',
    path: '/Users/{userId}',
    server,
    auth,
    params: [userId('scim_user_id')],
  },
  {
    toolSet,
    name: 'GetScimUser',
    description: 'One SCIM user.',
    method: 'GET',
    path: '/Users/{userId}',
    server,
    auth,
    params: [userId('user_id')],
  },
  {
    toolSet,
    name: 'UpdateScimUserRecord',
    description: 'SCIM patch of a user.',
    method: 'PATCH',
    path: '/Users/{userId}',
    server,
    auth,
    body: { kind: 'mode', schema: patchScimUserBody },
    params: [userId('user_id', 'x')],
  },
  {
    toolSet,
    name: 'UpdateUserAttributes',
    description: "Replace a SCIM user's attributes.",
    method: 'PUT',
    path: '/Users/{userId}',
    server,
    auth,
    body: { kind: 'mode', schema: replaceScimUserBody },
    params: [userId('user_id', 'x')],
  },
];
