import { type ParamDeclaration, type ToolDeclaration, WHOLE_BODY } from '@toolhost/core';
import { createWebhookBody, enableWebhookNotificationsBody } from '../schemas/scim-webhooks.generated.js';
import { gridAuth } from './auth.js';

const toolSet = 'GridApi';
const auth = gridAuth('webhook:manage');

const id = { type: 'string', minLength: 1 } as const;

// Every base id is sent as `baseId`, the key the tool set paces requests by (5/s per base).
function baseId(name: string, opts: Partial<ParamDeclaration> = {}): ParamDeclaration {
  return { name, in: 'path', as: 'baseId', schema: id, description: 'Base id (app...).', ...opts };
}

function webhookId(opts: Partial<ParamDeclaration> = {}): ParamDeclaration {
  return {
    name: 'webhook_id',
    in: 'path',
    as: 'webhookId',
    schema: id,
    description: 'Webhook id (ach...).',
    ...opts,
  };
}

export const webhookTools: ToolDeclaration[] = [
  {
    toolSet,
    name: 'ListWebhooksForBase',
    description: 'List the webhooks registered on a base, with their statuses.',
    method: 'GET',
    path: '/bases/{baseId}/webhooks',
    auth,
    params: [baseId('base_identifier', { required: true })],
  },
  {
    toolSet,
    name: 'CreateGridWebhook',
    description: 'Create a webhook on a base.',
    method: 'POST',
    path: '/bases/{baseId}/webhooks',
    auth,
    body: { kind: 'mode', schema: createWebhookBody },
    params: [baseId('base_id', { mode: 'x' })],
  },
  {
    toolSet,
    name: 'DeleteGridWebhook',
    description: 'Delete a webhook from a base.',
    method: 'DELETE',
    path: '/bases/{baseId}/webhooks/{webhookId}',
    auth,
    params: [baseId('grid_base_id', { required: true }), webhookId({ required: true })],
  },
  {
    toolSet,
    name: 'ToggleWebhookNotifications',
    description: 'Enable or disable notification pings of a webhook (body: {enable}).',
    method: 'POST',
    path: '/bases/{baseId}/webhooks/{webhookId}/enableNotifications',
    auth,
    body: { kind: 'mode', schema: enableWebhookNotificationsBody },
    params: [baseId('grid_base_id', { mode: 'x' }), webhookId({ mode: 'x' })],
  },
  {
    toolSet,
    name: 'ListWebhookPayloads',
    description: 'Read the update messages (payloads) of a webhook from a cursor.',
    method: 'GET',
    path: '/bases/{baseId}/webhooks/{webhookId}/payloads',
    // The facts list no scope for this endpoint; its sibling webhook endpoints need webhook:manage.
    auth,
    params: [
      baseId('base_id', { required: true }),
      webhookId({ required: true }),
      {
        name: 'maximum_number_of_messages',
        in: 'query',
        as: 'limit',
        schema: { type: 'integer', minimum: 1, maximum: 50 },
        description: 'Page size.',
      },
      {
        name: 'pagination_cursor',
        in: 'query',
        as: 'cursor',
        schema: { type: 'integer', minimum: 1 },
        description: 'Cursor from the previous page.',
      },
    ],
  },
  {
    toolSet,
    name: 'RefreshWebhookLifespan',
    description: "Extend an active webhook's expiration.",
    method: 'POST',
    path: '/bases/{baseId}/webhooks/{webhookId}/refresh',
    auth,
    body: { kind: 'fields' },
    params: [
      baseId('base_identifier', { required: true }),
      webhookId({ required: true, description: 'Active webhook id (ach...).' }),
      // The spec's JSON parameter is the request body itself; the API defines no fields in it
      // today, so `{}` is sent when it is left out.
      {
        name: 'webhook_request_body',
        in: 'body',
        as: WHOLE_BODY,
        schema: { type: 'object' },
        description: 'JSON body; usually omitted.',
      },
    ],
  },
];
