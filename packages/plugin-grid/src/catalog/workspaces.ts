import type { ExecuteOnly, ParamDeclaration, ToolDeclaration } from '@toolhost/core';
import {
  addWorkspaceCollaboratorsBody,
  createWorkspaceBody,
  moveBaseBody,
  updateWorkspaceCollaboratorBody,
} from '../schemas/workspaces-records.generated.js';
import { gridAuth } from './auth.js';
import { collaboratorId, idOf, pathId } from './params.js';

const readAuth = gridAuth('workspacesAndBases:read');
const writeAuth = gridAuth('workspacesAndBases:write');
const manageAuth = gridAuth('workspacesAndBases:manage');

const restriction = { type: 'string', enum: ['unrestricted', 'onlyOwners'] } as const;

function workspaceId(name: string, executeOnly?: ExecuteOnly, description = idOf('wsp')): ParamDeclaration {
  return pathId(name, 'workspaceId', description, executeOnly);
}

export const workspaceTools: ToolDeclaration[] = [
  {
    name: 'CreateGridWorkspace',
    description: 'Airtable: create a workspace in an enterprise account.',
    method: 'POST',
    path: '/meta/workspaces',
    auth: manageAuth,
    body: { kind: 'mode', schema: createWorkspaceBody },
  },
  {
    name: 'DeleteWorkspace',
    description: 'Airtable: delete a workspace.',
    method: 'DELETE',
    path: '/meta/workspaces/{workspaceId}',
    auth: manageAuth,
    params: [workspaceId('workspace_id')],
  },
  {
    name: 'GetWorkspaceCollaborators',
    description: 'Airtable: a workspace with who has access: collaborators and invites.',
    method: 'GET',
    path: '/meta/workspaces/{workspaceId}',
    auth: readAuth,
    params: [
      workspaceId('workspace_identifier'),
      {
        name: 'include_additional_information',
        in: 'query',
        apiName: 'include',
        schema: { type: 'array', items: { type: 'string', enum: ['collaborators', 'inviteLinks'] } },
        description: '',
      },
    ],
  },
  {
    name: 'AddWorkspaceCollaborator',
    description: 'Airtable: share a workspace: add users or groups with a permission level.',
    method: 'POST',
    path: '/meta/workspaces/{workspaceId}/collaborators',
    auth: writeAuth,
    body: { kind: 'mode', schema: addWorkspaceCollaboratorsBody },
    params: [workspaceId('workspace_id', 'required')],
  },
  {
    name: 'RemoveWorkspaceCollaborator',
    description: "Airtable: remove a user's or group's access to a workspace.",
    method: 'DELETE',
    path: '/meta/workspaces/{workspaceId}/collaborators/{userOrGroupId}',
    auth: writeAuth,
    params: [collaboratorId('collaborator_identifier'), workspaceId('workspace_id')],
  },
  {
    name: 'UpdateWorkspaceCollaboratorPermission',
    description: "Airtable: change a collaborator's permission level on a workspace.",
    method: 'PATCH',
    path: '/meta/workspaces/{workspaceId}/collaborators/{userOrGroupId}',
    auth: writeAuth,
    body: { kind: 'mode', schema: updateWorkspaceCollaboratorBody },
    params: [workspaceId('workspace_id', 'required'), collaboratorId('collaborator_id', 'required')],
  },
  {
    name: 'DeleteWorkspaceInvite',
    description: 'Airtable: delete a pending invite to a workspace.',
    method: 'DELETE',
    path: '/meta/workspaces/{workspaceId}/invites/{inviteId}',
    auth: writeAuth,
    params: [pathId('invite_id', 'inviteId', ''), workspaceId('workspace_id')],
  },
  {
    name: 'MoveGridBase',
    // The API's path names the workspace the base is in now; the destination is the body's
    // required targetWorkspaceId. The spec's only parameter therefore fills the path.
    description: "Airtable: move a base to another workspace; target_workspace_id is the base's current one.",
    method: 'POST',
    path: '/meta/workspaces/{workspaceId}/moveBase',
    auth: manageAuth,
    body: { kind: 'mode', schema: moveBaseBody },
    params: [workspaceId('target_workspace_id', 'required', "Base's CURRENT wsp…; target in body")],
  },
  {
    name: 'UpdateWorkspaceRestrictions',
    description: 'Airtable: restrict who in a workspace may create invites and share links.',
    method: 'POST',
    path: '/meta/workspaces/{workspaceId}/updateRestrictions',
    auth: writeAuth,
    body: { kind: 'fields' },
    params: [
      workspaceId('workspace_id'),
      {
        name: 'invite_creation_restriction',
        in: 'body',
        bodyPath: 'inviteCreationRestriction',
        schema: restriction,
        description: '',
      },
      {
        name: 'share_creation_restriction',
        in: 'body',
        bodyPath: 'shareCreationRestriction',
        schema: restriction,
        description: '',
      },
    ],
  },
];
