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

const toolSet = 'GridApi';
// SCIM provisioning lives on its own host (https://airtable.com/scim/v2).
const server = 'scim';
const auth = gridAuth('enterprise.scim.usersAndGroups:manage');

const id = { type: 'string', minLength: 1 } as const;

function groupId(name: string, opts: Partial<ParamDeclaration> = {}): ParamDeclaration {
  return { name, in: 'path', as: 'groupId', schema: id, description: 'SCIM group id.', ...opts };
}

function userId(name: string, opts: Partial<ParamDeclaration> = {}): ParamDeclaration {
  return { name, in: 'path', as: 'userId', schema: id, description: 'SCIM user id.', ...opts };
}

export const scimTools: ToolDeclaration[] = [
  {
    toolSet,
    name: 'ListScimGroups',
    description: 'List SCIM groups of the enterprise, optionally filtered.',
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
        description: 'SCIM filter, e.g. displayName eq "Ops".',
      },
      {
        name: 'group_count',
        in: 'query',
        as: 'count',
        schema: { type: 'integer', minimum: 0 },
        description: 'Maximum groups to return.',
      },
    ],
  },
  {
    toolSet,
    name: 'CreateScimGroup',
    description: 'Create a SCIM group with no members.',
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
    params: [groupId('group_id', { required: true })],
  },
  {
    toolSet,
    name: 'FetchScimGroup',
    description: 'Get one SCIM group with its members.',
    method: 'GET',
    path: '/Groups/{groupId}',
    server,
    auth,
    params: [groupId('scim_group_id', { required: true })],
  },
  {
    toolSet,
    name: 'UpdateGroupDetails',
    description: 'Apply SCIM patch operations to a group (name, members).',
    method: 'PATCH',
    path: '/Groups/{groupId}',
    server,
    auth,
    body: { kind: 'mode', schema: patchScimGroupBody },
    params: [groupId('group_id', { mode: 'x' })],
  },
  {
    toolSet,
    name: 'UpdateGroupAttributes',
    description: "Replace a SCIM group's attributes (name, members).",
    method: 'PUT',
    path: '/Groups/{groupId}',
    server,
    auth,
    body: { kind: 'mode', schema: replaceScimGroupBody },
    params: [groupId('group_id', { mode: 'x' })],
  },
  {
    toolSet,
    name: 'ListScimUsers',
    description: 'List SCIM users of the enterprise, optionally filtered, in pages.',
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
        description: '1-based index of the first user.',
      },
      {
        name: 'user_count_limit',
        in: 'query',
        as: 'count',
        schema: { type: 'integer', minimum: 0 },
        description: 'Maximum users to return.',
      },
      {
        name: 'user_filter',
        in: 'query',
        as: 'filter',
        schema: { type: 'string' },
        description: 'SCIM filter, e.g. userName eq "a@b.co".',
      },
    ],
  },
  {
    toolSet,
    name: 'CreateScimUser',
    description: 'Create (provision) a SCIM user.',
    method: 'POST',
    path: '/Users',
    server,
    auth,
    body: { kind: 'mode', schema: createScimUserBody },
  },
  {
    toolSet,
    name: 'DeleteScimUser',
    description:
      'Delete a SCIM user; not the admin whose token is used nor a sole owner of a shared workspace.',
    method: 'DELETE',
    path: '/Users/{userId}',
    server,
    auth,
    params: [userId('scim_user_id', { required: true })],
  },
  {
    toolSet,
    name: 'GetScimUser',
    description: 'Get one SCIM user.',
    method: 'GET',
    path: '/Users/{userId}',
    server,
    auth,
    params: [userId('user_id', { required: true })],
  },
  {
    toolSet,
    name: 'UpdateScimUserRecord',
    description: 'Apply SCIM patch operations to a user.',
    method: 'PATCH',
    path: '/Users/{userId}',
    server,
    auth,
    body: { kind: 'mode', schema: patchScimUserBody },
    params: [userId('user_id', { mode: 'x' })],
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
    params: [userId('user_id', { mode: 'x' })],
  },
];
