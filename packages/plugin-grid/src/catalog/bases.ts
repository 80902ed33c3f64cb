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

const toolSet = 'GridApi';

/**
 * A path id under its API name. Required, or `mode: 'x'` (execute only) on mode tools.
 * Every base id is declared `as: 'baseId'`, the key the tool set paces requests by.
 */
export function pathId(name: string, as: string, description: string, mode?: 'x'): ParamDeclaration {
  return {
    name,
    in: 'path',
    as,
    ...(mode ? { mode } : { required: true }),
    schema: { type: 'string', minLength: 1 },
    description,
  };
}

/** Airtable's `include` query list; the meta endpoints repeat the plain key (`include=a&include=b`). */
export function includeParam(name: string, values: readonly string[]): ParamDeclaration {
  return {
    name,
    in: 'query',
    as: 'include',
    schema: { type: 'array', items: { type: 'string', enum: values } },
    description: 'Extra data to return.',
  };
}

const BASE = 'Base id (app...).';
const COLLABORATOR = 'User (usr...) or group (ugp...) id.';
const INTERFACE = 'Interface page bundle id (pbd...).';

const readBases = gridAuth('workspacesAndBases:read');
const writeBases = gridAuth('workspacesAndBases:write');
const manageShares = gridAuth('workspacesAndBases.shares:manage');

export const baseTools: ToolDeclaration[] = [
  {
    toolSet,
    name: 'ListGridBases',
    description: 'List the bases the token can access.',
    method: 'GET',
    path: '/meta/bases',
    auth: gridAuth('schema.bases:read'),
    params: [
      {
        name: 'pagination_offset',
        in: 'query',
        as: 'offset',
        schema: { type: 'string' },
        description: 'offset from the previous page.',
      },
    ],
  },
  {
    toolSet,
    name: 'CreateGridBase',
    description: 'Create a base in a workspace, with its tables and fields.',
    method: 'POST',
    path: '/meta/bases',
    auth: gridAuth('schema.bases:write'),
    body: { kind: 'mode', schema: createBaseBody },
  },
  {
    toolSet,
    name: 'DeleteGridBase',
    description: 'Delete a base.',
    method: 'DELETE',
    path: '/meta/bases/{baseId}',
    auth: gridAuth('workspacesAndBases:manage'),
    params: [pathId('base_id', 'baseId', BASE)],
  },
  {
    toolSet,
    name: 'GetBaseCollaborators',
    description: 'Get a base with, as included, its collaborators, invite links and interfaces.',
    method: 'GET',
    path: '/meta/bases/{baseId}',
    auth: gridAuth('schema.bases:read', 'workspacesAndBases:read'),
    params: [
      pathId('base_id', 'baseId', BASE),
      includeParam('fields_to_include', ['collaborators', 'inviteLinks', 'interfaces', 'packages']),
    ],
  },
  {
    toolSet,
    name: 'ListBaseBlockInstallations',
    description: 'List the extension (block) installations of a base.',
    method: 'GET',
    path: '/meta/bases/{baseId}/blockInstallations',
    auth: readBases,
    params: [pathId('base_id', 'baseId', BASE)],
  },
  {
    toolSet,
    name: 'DeleteGridBlockInstallation',
    description: 'Delete an extension installation (recoverable later).',
    method: 'DELETE',
    path: '/meta/bases/{baseId}/blockInstallations/{blockInstallationId}',
    auth: writeBases,
    params: [
      pathId('grid_base_id', 'baseId', BASE),
      pathId('block_installation_id', 'blockInstallationId', 'Installation id (bli...).'),
    ],
  },
  {
    toolSet,
    name: 'ManageGridBlockInstallation',
    description: 'Enable or disable an extension installation.',
    method: 'PATCH',
    path: '/meta/bases/{baseId}/blockInstallations/{blockInstallationId}',
    auth: writeBases,
    hints: { idempotent: true },
    body: { kind: 'mode', schema: blockInstallationUpdateBody },
    params: [
      pathId('grid_base_id', 'baseId', BASE, 'x'),
      pathId('block_installation_id', 'blockInstallationId', 'Installation id (bli...).', 'x'),
    ],
  },
  {
    toolSet,
    name: 'AddBaseCollaborator',
    description: 'Add users or groups to a base with a permission level.',
    method: 'POST',
    path: '/meta/bases/{baseId}/collaborators',
    auth: writeBases,
    body: { kind: 'mode', schema: baseCollaboratorsAddBody },
    params: [pathId('base_id', 'baseId', BASE, 'x')],
  },
  {
    toolSet,
    name: 'RemoveBaseCollaborator',
    description: 'Remove a user or group from a base.',
    method: 'DELETE',
    path: '/meta/bases/{baseId}/collaborators/{userOrGroupId}',
    auth: writeBases,
    params: [pathId('base_id', 'baseId', BASE), pathId('collaborator_id', 'userOrGroupId', COLLABORATOR)],
  },
  {
    toolSet,
    name: 'UpdateCollaboratorPermission',
    description: "Change a base collaborator's permission level.",
    method: 'PATCH',
    path: '/meta/bases/{baseId}/collaborators/{userOrGroupId}',
    auth: writeBases,
    hints: { idempotent: true },
    body: { kind: 'mode', schema: baseCollaboratorUpdateBody },
    params: [
      pathId('base_identifier', 'baseId', BASE, 'x'),
      pathId('collaborator_id', 'userOrGroupId', COLLABORATOR, 'x'),
    ],
  },
  {
    toolSet,
    name: 'GetInterfaceInfo',
    description: 'Get an interface with, as included, its collaborators and invite links.',
    method: 'GET',
    path: '/meta/bases/{baseId}/interfaces/{pageBundleId}',
    auth: readBases,
    params: [
      pathId('grid_base_id', 'baseId', BASE),
      // The interfaces object of GetBaseCollaborators is keyed by page bundle id: that is the id.
      pathId('interface_id', 'pageBundleId', 'Page bundle id (pbd...) of the interface.'),
      includeParam('include_elements', ['collaborators', 'inviteLinks']),
    ],
  },
  {
    toolSet,
    name: 'AddCollaboratorToGridInterface',
    description: 'Add users or groups to an interface with a permission level.',
    method: 'POST',
    path: '/meta/bases/{baseId}/interfaces/{pageBundleId}/collaborators',
    auth: writeBases,
    body: { kind: 'mode', schema: interfaceCollaboratorsAddBody },
    params: [
      pathId('grid_base_id', 'baseId', BASE, 'x'),
      pathId('page_bundle_id', 'pageBundleId', INTERFACE, 'x'),
    ],
  },
  {
    toolSet,
    name: 'RemoveInterfaceCollaborator',
    description: 'Remove a user or group from an interface.',
    method: 'DELETE',
    path: '/meta/bases/{baseId}/interfaces/{pageBundleId}/collaborators/{userOrGroupId}',
    auth: writeBases,
    params: [
      pathId('base_id', 'baseId', BASE),
      pathId('collaborator_id', 'userOrGroupId', COLLABORATOR),
      pathId('interface_page_bundle_id', 'pageBundleId', INTERFACE),
    ],
  },
  {
    toolSet,
    name: 'UpdateCollaboratorPermissions',
    description: "Change an interface-only collaborator's permission level.",
    method: 'PATCH',
    path: '/meta/bases/{baseId}/interfaces/{pageBundleId}/collaborators/{userOrGroupId}',
    auth: writeBases,
    hints: { idempotent: true },
    body: { kind: 'mode', schema: interfaceCollaboratorUpdateBody },
    params: [
      pathId('base_identifier', 'baseId', BASE, 'x'),
      pathId('interface_page_bundle_id', 'pageBundleId', INTERFACE, 'x'),
      pathId('collaborator_id', 'userOrGroupId', COLLABORATOR, 'x'),
    ],
  },
  {
    toolSet,
    name: 'DeleteInterfaceInvite',
    description: 'Delete an outstanding invite to an interface.',
    method: 'DELETE',
    path: '/meta/bases/{baseId}/interfaces/{pageBundleId}/invites/{inviteId}',
    auth: writeBases,
    params: [
      pathId('base_identifier', 'baseId', BASE),
      pathId('invite_id', 'inviteId', 'Invite id (inv...).'),
      pathId('page_bundle_id', 'pageBundleId', INTERFACE),
    ],
  },
  {
    toolSet,
    name: 'DeleteBaseInvite',
    description: 'Delete an outstanding invite to a base.',
    method: 'DELETE',
    path: '/meta/bases/{baseId}/invites/{inviteId}',
    auth: writeBases,
    params: [pathId('base_id', 'baseId', BASE), pathId('invite_id', 'inviteId', 'Invite id (inv...).')],
  },
  {
    toolSet,
    name: 'ListBaseShares',
    description: 'List the share links of a base.',
    method: 'GET',
    path: '/meta/bases/{baseId}/shares',
    auth: manageShares,
    params: [pathId('base_identifier', 'baseId', BASE)],
  },
  {
    toolSet,
    name: 'DeleteGridShare',
    description: 'Delete a share link permanently.',
    method: 'DELETE',
    path: '/meta/bases/{baseId}/shares/{shareId}',
    auth: manageShares,
    params: [pathId('grid_base_id', 'baseId', BASE), pathId('share_id', 'shareId', 'Share id (shr...).')],
  },
  {
    toolSet,
    name: 'ManageGridSharing',
    description: 'Enable or disable a share link.',
    method: 'PATCH',
    path: '/meta/bases/{baseId}/shares/{shareId}',
    auth: manageShares,
    hints: { idempotent: true },
    body: { kind: 'mode', schema: shareUpdateBody },
    params: [
      pathId('grid_base_id', 'baseId', BASE, 'x'),
      pathId('share_identifier', 'shareId', 'Share id (shr...).', 'x'),
    ],
  },
];
