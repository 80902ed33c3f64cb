import type { ParamDeclaration, ToolDeclaration } from '@toolhost/core';
import {
  addWorkspaceCollaboratorsBody,
  createWorkspaceBody,
  moveBaseBody,
  updateWorkspaceCollaboratorBody,
} from '../schemas/workspaces-records.generated.js';
import { gridAuth } from './auth.js';

const toolSet = 'GridApi';
const readAuth = gridAuth('workspacesAndBases:read');
const writeAuth = gridAuth('workspacesAndBases:write');
const manageAuth = gridAuth('workspacesAndBases:manage');

const id = { type: 'string', minLength: 1 } as const;
const restriction = { type: 'string', enum: ['unrestricted', 'onlyOwners'] } as const;

function workspaceId(name: string, opts: Partial<ParamDeclaration> = {}): ParamDeclaration {
  return {
    name,
    in: 'path',
    as: 'workspaceId',
    schema: id,
    description: 'Workspace id (wsp...).',
    ...opts,
  };
}

function collaboratorId(name: string, opts: Partial<ParamDeclaration> = {}): ParamDeclaration {
  return {
    name,
    in: 'path',
    as: 'userOrGroupId',
    schema: id,
    description: 'User (usr...) or group (ugp...) id.',
    ...opts,
  };
}

export const workspaceTools: ToolDeclaration[] = [
  {
    toolSet,
    name: 'CreateGridWorkspace',
    description: 'Create a workspace in an enterprise account.',
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
    params: [workspaceId('workspace_id', { required: true })],
  },
  {
    toolSet,
    name: 'GetWorkspaceCollaborators',
    description: 'Get a workspace, optionally with its collaborators and open invites.',
    method: 'GET',
    path: '/meta/workspaces/{workspaceId}',
    auth: readAuth,
    params: [
      workspaceId('workspace_identifier', { required: true }),
      {
        name: 'include_additional_information',
        in: 'query',
        as: 'include',
        schema: { type: 'array', items: { type: 'string', enum: ['collaborators', 'inviteLinks'] } },
        description: 'Extra parts to include.',
      },
    ],
  },
  {
    toolSet,
    name: 'AddWorkspaceCollaborator',
    description: 'Add users or groups to a workspace with a permission level.',
    method: 'POST',
    path: '/meta/workspaces/{workspaceId}/collaborators',
    auth: writeAuth,
    body: { kind: 'mode', schema: addWorkspaceCollaboratorsBody },
    params: [workspaceId('workspace_id', { mode: 'x' })],
  },
  {
    toolSet,
    name: 'RemoveWorkspaceCollaborator',
    description: 'Remove a user or group from a workspace.',
    method: 'DELETE',
    path: '/meta/workspaces/{workspaceId}/collaborators/{userOrGroupId}',
    auth: writeAuth,
    params: [
      collaboratorId('collaborator_identifier', { required: true }),
      workspaceId('workspace_id', { required: true }),
    ],
  },
  {
    toolSet,
    name: 'UpdateWorkspaceCollaboratorPermission',
    description: "Change a workspace collaborator's permission level.",
    method: 'PATCH',
    path: '/meta/workspaces/{workspaceId}/collaborators/{userOrGroupId}',
    auth: writeAuth,
    body: { kind: 'mode', schema: updateWorkspaceCollaboratorBody },
    params: [workspaceId('workspace_id', { mode: 'x' }), collaboratorId('collaborator_id', { mode: 'x' })],
  },
  {
    toolSet,
    name: 'DeleteWorkspaceInvite',
    description: 'Delete an outstanding invite to a workspace.',
    method: 'DELETE',
    path: '/meta/workspaces/{workspaceId}/invites/{inviteId}',
    auth: writeAuth,
    params: [
      {
        name: 'invite_id',
        in: 'path',
        as: 'inviteId',
        required: true,
        schema: id,
        description: 'Invite id (inv...).',
      },
      workspaceId('workspace_id', { required: true }),
    ],
  },
  {
    toolSet,
    name: 'MoveGridBase',
    // The API's path names the workspace the base is in now; the destination is the body's
    // required targetWorkspaceId. The spec's only parameter therefore fills the path.
    description:
      "Move a base to another workspace. target_workspace_id is sent as the base's current workspace.",
    method: 'POST',
    path: '/meta/workspaces/{workspaceId}/moveBase',
    auth: manageAuth,
    body: { kind: 'mode', schema: moveBaseBody },
    params: [
      workspaceId('target_workspace_id', {
        mode: 'x',
        description: "Base's current workspace (wsp...).",
      }),
    ],
  },
  {
    toolSet,
    name: 'UpdateWorkspaceRestrictions',
    description: 'Set who may create invites and shares in a workspace.',
    method: 'POST',
    path: '/meta/workspaces/{workspaceId}/updateRestrictions',
    auth: writeAuth,
    body: { kind: 'fields' },
    params: [
      workspaceId('workspace_id', { required: true }),
      {
        name: 'invite_creation_restriction',
        in: 'body',
        as: 'inviteCreationRestriction',
        schema: restriction,
        description: 'Who may invite.',
      },
      {
        name: 'share_creation_restriction',
        in: 'body',
        as: 'shareCreationRestriction',
        schema: restriction,
        description: 'Who may create shares.',
      },
    ],
  },
];
