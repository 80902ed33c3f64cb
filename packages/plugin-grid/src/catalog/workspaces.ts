import type { ParamDeclaration, ToolDeclaration } from '@toolhost/core';
import {
  addWorkspaceCollaboratorsBody,
  createWorkspaceBody,
  moveBaseBody,
  updateWorkspaceCollaboratorBody,
} from '../schemas/workspaces-records.generated.js';
import { gridAuth } from './auth.js';
import { collaboratorId, idOf, pathId } from './params.js';

const toolSet = 'GridApi';
const readAuth = gridAuth('workspacesAndBases:read');
const writeAuth = gridAuth('workspacesAndBases:write');
const manageAuth = gridAuth('workspacesAndBases:manage');

const restriction = { type: 'string', enum: ['unrestricted', 'onlyOwners'] } as const;

function workspaceId(name: string, mode?: 'x', description = idOf('wsp')): ParamDeclaration {
  return pathId(name, 'workspaceId', description, mode);
}

export const workspaceTools: ToolDeclaration[] = [
  {
    toolSet,
    name: 'CreateGridWorkspace',
    description: 'Create an enterprise workspace.',
    method: 'POST',
    path: '/meta/workspaces',
    auth: manageAuth,
    body: { kind: 'mode', schema: createWorkspaceBody },
  },
  {
    toolSet,
    name: 'DeleteWorkspace',
    description: 'Delete a workspace.',
    method: 'DELETE',
    path: '/meta/workspaces/{workspaceId}',
    auth: manageAuth,
    params: [workspaceId('workspace_id')],
  },
  {
    toolSet,
    name: 'GetWorkspaceCollaborators',
    description: 'A workspace, optionally with collaborators and invites.',
    method: 'GET',
    path: '/meta/workspaces/{workspaceId}',
    auth: readAuth,
    params: [
      workspaceId('workspace_identifier'),
      {
        name: 'include_additional_information',
        in: 'query',
        as: 'include',
        schema: { type: 'array', items: { type: 'string', enum: ['collaborators', 'inviteLinks'] } },
        description: '',
      },
    ],
  },
  {
    toolSet,
    name: 'AddWorkspaceCollaborator',
    description: 'Add users or groups with a permission level.',
    method: 'POST',
    path: '/meta/workspaces/{workspaceId}/collaborators',
    auth: writeAuth,
    body: { kind: 'mode', schema: addWorkspaceCollaboratorsBody },
    params: [workspaceId('workspace_id', 'x')],
  },
  {
    toolSet,
    name: 'RemoveWorkspaceCollaborator',
    description: 'Remove a user or group.',
    method: 'DELETE',
    path: '/meta/workspaces/{workspaceId}/collaborators/{userOrGroupId}',
    auth: writeAuth,
    params: [collaboratorId('collaborator_identifier'), workspaceId('workspace_id')],
  },
  {
    toolSet,
    name: 'UpdateWorkspaceCollaboratorPermission',
    description: "Change a collaborator's permission level.",
    method: 'PATCH',
    path: '/meta/workspaces/{workspaceId}/collaborators/{userOrGroupId}',
    auth: writeAuth,
    body: { kind: 'mode', schema: updateWorkspaceCollaboratorBody },
    params: [workspaceId('workspace_id', 'x'), collaboratorId('collaborator_id', 'x')],
  },
  {
    toolSet,
    name: 'DeleteWorkspaceInvite',
    description: 'Delete a pending invite.',
    method: 'DELETE',
    path: '/meta/workspaces/{workspaceId}/invites/{inviteId}',
    auth: writeAuth,
    params: [pathId('invite_id', 'inviteId', ''), workspaceId('workspace_id')],
  },
  {
    toolSet,
    name: 'MoveGridBase',
    // The API's path names the workspace the base is in now; the destination is the body's
    // required targetWorkspaceId. The spec's only parameter therefore fills the path.
    description: "Move a base to another workspace; target_workspace_id is the base's current one.",
    method: 'POST',
    path: '/meta/workspaces/{workspaceId}/moveBase',
    auth: manageAuth,
    body: { kind: 'mode', schema: moveBaseBody },
    params: [workspaceId('target_workspace_id', 'x', "Base's CURRENT wsp…; target in body")],
  },
  {
    toolSet,
    name: 'UpdateWorkspaceRestrictions',
    description: 'Who may create invites and shares.',
    method: 'POST',
    path: '/meta/workspaces/{workspaceId}/updateRestrictions',
    auth: writeAuth,
    body: { kind: 'fields' },
    params: [
      workspaceId('workspace_id'),
      {
        name: 'invite_creation_restriction',
        in: 'body',
        as: 'inviteCreationRestriction',
        schema: restriction,
        description: '',
      },
      {
        name: 'share_creation_restriction',
        in: 'body',
        as: 'shareCreationRestriction',
        schema: restriction,
        description: '',
      },
    ],
  },
];
