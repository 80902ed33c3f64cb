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
    description: 'Airtable: list all bases (databases) the token can access, paged.',
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
    description: 'Airtable: create a base in a workspace, with its tables and fields.',
    method: 'POST',
    path: '/meta/bases',
    auth: gridAuth('schema.bases:write'),
    body: { kind: 'mode', schema: createBaseBody },
  },
  {
    name: 'DeleteGridBase',
    description: 'Airtable: delete a base.',
    method: 'DELETE',
    path: '/meta/bases/{baseId}',
    auth: gridAuth('workspacesAndBases:manage'),
    params: [baseId('base_id')],
  },
  {
    name: 'GetBaseCollaborators',
    description: 'Airtable: one base and who has access to it: its collaborators, invites and interfaces.',
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
    description: "Airtable: list a base's installed extensions (blocks).",
    method: 'GET',
    path: '/meta/bases/{baseId}/blockInstallations',
    auth: readBases,
    params: [baseId('base_id')],
  },
  {
    name: 'DeleteGridBlockInstallation',
    description: 'Airtable: delete (uninstall) an extension from a base; recoverable.',
    method: 'DELETE',
    path: '/meta/bases/{baseId}/blockInstallations/{blockInstallationId}',
    auth: writeBases,
    params: [baseId('grid_base_id'), pathId('block_installation_id', 'blockInstallationId', '')],
  },
  {
    name: 'ManageGridBlockInstallation',
    description: 'Airtable: enable or disable an extension installed in a base.',
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
    description: 'Airtable: share a base: add users or groups as collaborators with a permission level.',
    method: 'POST',
    path: '/meta/bases/{baseId}/collaborators',
    auth: writeBases,
    body: { kind: 'mode', schema: baseCollaboratorsAddBody },
    params: [baseId('base_id', 'required')],
  },
  {
    name: 'RemoveBaseCollaborator',
    description: "Airtable: remove a user's or group's access to a base.",
    method: 'DELETE',
    path: '/meta/bases/{baseId}/collaborators/{userOrGroupId}',
    auth: writeBases,
    params: [baseId('base_id'), collaboratorId('collaborator_id')],
  },
  {
    name: 'UpdateCollaboratorPermission',
    description:
      "Airtable: change a user's or group's permission level on a base (read, comment, edit, create).",
    method: 'PATCH',
    path: '/meta/bases/{baseId}/collaborators/{userOrGroupId}',
    auth: writeBases,
    hints: { idempotent: true },
    body: { kind: 'mode', schema: baseCollaboratorUpdateBody },
    params: [baseId('base_identifier', 'required'), collaboratorId('collaborator_id', 'required')],
  },
  {
    name: 'GetInterfaceInfo',
    description: 'Airtable: an interface of a base, with its collaborators and invite links.',
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
    description: 'Airtable: share an interface only: add users or groups with a permission level.',
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
    description: "Airtable: remove a user's or group's access to an interface.",
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
    description: "Airtable: change an interface-only collaborator's permission level.",
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
    description: 'Airtable: delete a pending invite to an interface.',
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
    description: 'Airtable: delete a pending invite to a base.',
    method: 'DELETE',
    path: '/meta/bases/{baseId}/invites/{inviteId}',
    auth: writeBases,
    params: [baseId('base_id'), pathId('invite_id', 'inviteId', '')],
  },
  {
    name: 'ListBaseShares',
    description: "Airtable: list a base's share links (public shared views and bases).",
    method: 'GET',
    path: '/meta/bases/{baseId}/shares',
    auth: manageShares,
    params: [baseId('base_identifier')],
  },
  {
    name: 'DeleteGridShare',
    description: "Airtable: delete a base's share link (cannot be undone).",
    method: 'DELETE',
    path: '/meta/bases/{baseId}/shares/{shareId}',
    auth: manageShares,
    params: [baseId('grid_base_id'), pathId('share_id', 'shareId', '')],
  },
  {
    name: 'ManageGridSharing',
    description: "Airtable: enable or disable a base's share link.",
    method: 'PATCH',
    path: '/meta/bases/{baseId}/shares/{shareId}',
    auth: manageShares,
    hints: { idempotent: true },
    body: { kind: 'mode', schema: shareUpdateBody },
    params: [baseId('grid_base_id', 'required'), pathId('share_identifier', 'shareId', '', 'required')],
  },
];
