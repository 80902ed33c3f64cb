import type { ParamDeclaration, ToolDeclaration } from '@toolhost/core';
import {
  baseCollaboratorsAddBody,
  baseCollaboratorUpdateBody,
  blockInstallationUpdateBody,
  createBaseBody,
  interfaceCollaboratorsAddBody,
  interfaceCollaboratorUpdateBody,
  shareUpdateBody,
} from '../schemas/bases-schema.generated.js';
import { gridAuth } from './auth.js';
import { baseId, collaboratorId, idOf, pathId } from './params.js';

/** Airtable's `include` query list; the meta endpoints repeat the plain key (`include=a&include=b`). */
export function includeParam(name: string, values: readonly string[]): ParamDeclaration {
  return {
    name,
    in: 'query',
    apiName: 'include',
    schema: { type: 'array', items: { type: 'string', enum: values } },
    description: '',
  };
}

const INTERFACE = idOf('pbd');

const readBases = gridAuth('workspacesAndBases:read');
const writeBases = gridAuth('workspacesAndBases:write');
const manageShares = gridAuth('workspacesAndBases.shares:manage');

export const baseTools: ToolDeclaration[] = [
  {
    name: 'ListGridBases',
    description: 'Bases the token can access.',
    method: 'GET',
    path: '/meta/bases',
    auth: gridAuth('schema.bases:read'),
    params: [
      {
        name: 'pagination_offset',
        in: 'query',
        apiName: 'offset',
        schema: { type: 'string' },
        description: '',
      },
    ],
  },
  {
    name: 'CreateGridBase',
    description: 'Create a base with tables and fields.',
    method: 'POST',
    path: '/meta/bases',
    auth: gridAuth('schema.bases:write'),
    body: { kind: 'mode', schema: createBaseBody },
  },
  {
    name: 'DeleteGridBase',
    description: 'Delete a base.',
    method: 'DELETE',
    path: '/meta/bases/{baseId}',
    auth: gridAuth('workspacesAndBases:manage'),
    params: [baseId('base_id')],
  },
  {
    name: 'GetBaseCollaborators',
    description: 'A base with included collaborators, invites, interfaces.',
    method: 'GET',
    path: '/meta/bases/{baseId}',
    auth: gridAuth('schema.bases:read', 'workspacesAndBases:read'),
    params: [
      baseId('base_id'),
      includeParam('fields_to_include', ['collaborators', 'inviteLinks', 'interfaces', 'packages']),
    ],
  },
  {
    name: 'ListBaseBlockInstallations',
    description: 'Extension (block) installations.',
    method: 'GET',
    path: '/meta/bases/{baseId}/blockInstallations',
    auth: readBases,
    params: [baseId('base_id')],
  },
  {
    name: 'DeleteGridBlockInstallation',
    description: 'Delete an extension installation (recoverable).',
    method: 'DELETE',
    path: '/meta/bases/{baseId}/blockInstallations/{blockInstallationId}',
    auth: writeBases,
    params: [baseId('grid_base_id'), pathId('block_installation_id', 'blockInstallationId', '')],
  },
  {
    name: 'ManageGridBlockInstallation',
    description: 'Enable or disable an extension installation.',
    method: 'PATCH',
    path: '/meta/bases/{baseId}/blockInstallations/{blockInstallationId}',
    auth: writeBases,
    hints: { idempotent: true },
    body: { kind: 'mode', schema: blockInstallationUpdateBody },
    params: [
      baseId('grid_base_id', 'required'),
      pathId('block_installation_id', 'blockInstallationId', '', 'required'),
    ],
  },
  {
    name: 'AddBaseCollaborator',
    description: 'Add users or groups with a permission level.',
    method: 'POST',
    path: '/meta/bases/{baseId}/collaborators',
    auth: writeBases,
    body: { kind: 'mode', schema: baseCollaboratorsAddBody },
    params: [baseId('base_id', 'required')],
  },
  {
    name: 'RemoveBaseCollaborator',
    description: 'Remove a user or group.',
    method: 'DELETE',
    path: '/meta/bases/{baseId}/collaborators/{userOrGroupId}',
    auth: writeBases,
    params: [baseId('base_id'), collaboratorId('collaborator_id')],
  },
  {
    name: 'UpdateCollaboratorPermission',
    description: "Change a collaborator's permission level.",
    method: 'PATCH',
    path: '/meta/bases/{baseId}/collaborators/{userOrGroupId}',
    auth: writeBases,
    hints: { idempotent: true },
    body: { kind: 'mode', schema: baseCollaboratorUpdateBody },
    params: [baseId('base_identifier', 'required'), collaboratorId('collaborator_id', 'required')],
  },
  {
    name: 'GetInterfaceInfo',
    description: 'An interface with included collaborators, invite links.',
    method: 'GET',
    path: '/meta/bases/{baseId}/interfaces/{pageBundleId}',
    auth: readBases,
    params: [
      baseId('grid_base_id'),
      // The interfaces object of GetBaseCollaborators is keyed by page bundle id: that is the id.
      pathId('interface_id', 'pageBundleId', 'Page bundle id (pbd…)'),
      includeParam('include_elements', ['collaborators', 'inviteLinks']),
    ],
  },
  {
    name: 'AddCollaboratorToGridInterface',
    description: 'Add users or groups with a permission level.',
    method: 'POST',
    path: '/meta/bases/{baseId}/interfaces/{pageBundleId}/collaborators',
    auth: writeBases,
    body: { kind: 'mode', schema: interfaceCollaboratorsAddBody },
    params: [
      baseId('grid_base_id', 'required'),
      pathId('page_bundle_id', 'pageBundleId', INTERFACE, 'required'),
    ],
  },
  {
    name: 'RemoveInterfaceCollaborator',
    description: 'Remove a user or group.',
    method: 'DELETE',
    path: '/meta/bases/{baseId}/interfaces/{pageBundleId}/collaborators/{userOrGroupId}',
    auth: writeBases,
    params: [
      baseId('base_id'),
      collaboratorId('collaborator_id'),
      pathId('interface_page_bundle_id', 'pageBundleId', INTERFACE),
    ],
  },
  {
    name: 'UpdateCollaboratorPermissions',
    description: "Change an interface-only collaborator's permission level.",
    method: 'PATCH',
    path: '/meta/bases/{baseId}/interfaces/{pageBundleId}/collaborators/{userOrGroupId}',
    auth: writeBases,
    hints: { idempotent: true },
    body: { kind: 'mode', schema: interfaceCollaboratorUpdateBody },
    params: [
      baseId('base_identifier', 'required'),
      pathId('interface_page_bundle_id', 'pageBundleId', INTERFACE, 'required'),
      collaboratorId('collaborator_id', 'required'),
    ],
  },
  {
    name: 'DeleteInterfaceInvite',
    description: 'Delete a pending invite.',
    method: 'DELETE',
    path: '/meta/bases/{baseId}/interfaces/{pageBundleId}/invites/{inviteId}',
    auth: writeBases,
    params: [
      baseId('base_identifier'),
      pathId('invite_id', 'inviteId', ''),
      pathId('page_bundle_id', 'pageBundleId', INTERFACE),
    ],
  },
  {
    name: 'DeleteBaseInvite',
    description: 'Delete a pending invite.',
    method: 'DELETE',
    path: '/meta/bases/{baseId}/invites/{inviteId}',
    auth: writeBases,
    params: [baseId('base_id'), pathId('invite_id', 'inviteId', '')],
  },
  {
    name: 'ListBaseShares',
    description: 'Share links of a base.',
    method: 'GET',
    path: '/meta/bases/{baseId}/shares',
    auth: manageShares,
    params: [baseId('base_identifier')],
  },
  {
    name: 'DeleteGridShare',
    description: 'Delete a share link permanently.',
    method: 'DELETE',
    path: '/meta/bases/{baseId}/shares/{shareId}',
    auth: manageShares,
    params: [baseId('grid_base_id'), pathId('share_id', 'shareId', '')],
  },
  {
    name: 'ManageGridSharing',
    description: 'Enable or disable a share link.',
    method: 'PATCH',
    path: '/meta/bases/{baseId}/shares/{shareId}',
    auth: manageShares,
    hints: { idempotent: true },
    body: { kind: 'mode', schema: shareUpdateBody },
    params: [baseId('grid_base_id', 'required'), pathId('share_identifier', 'shareId', '', 'required')],
  },
];
