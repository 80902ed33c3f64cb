import { type ParamDeclaration, type ToolDeclaration, WHOLE_BODY } from '@toolhost/core';
import { createWebhookBody, enableWebhookNotificationsBody } from '../schemas/scim-webhooks.generated.js';
import { gridAuth } from './auth.js';
// Every base id is sent as `baseId`, the key the tool set paces requests by (5/s per base).
import { baseId, pathId } from './params.js';

const toolSet = 'GridApi';
const auth = gridAuth('webhook:manage');

function webhookId(mode?: 'x'): ParamDeclaration {
  return pathId('webhook_id', 'webhookId', '', mode);
}

export const webhookTools: ToolDeclaration[] = [
  {
    toolSet,
    name: 'ListWebhooksForBase',
    description: 'Base webhooks with statuses.',
    method: 'GET',
    path: '/bases/{baseId}/webhooks',
    auth,
    params: [baseId('base_identifier')],
  },
  {
    toolSet,
    name: 'CreateGridWebhook',
    description: 'Create a webhook on a base.',
    method: 'POST',
    path: '/bases/{baseId}/webhooks',
    auth,
    body: { kind: 'mode', schema: createWebhookBody },
    params: [baseId('base_id', 'x')],
  },
  {
    toolSet,
    name: 'DeleteGridWebhook',
    description: 'Delete a webhook.',
    method: 'DELETE',
    path: '/bases/{baseId}/webhooks/{webhookId}',
    auth,
    params: [baseId('grid_base_id'), webhookId()],
  },
  {
    toolSet,
    name: 'ToggleWebhookNotifications',
    description: 'Notification pings on/off (body {enable}).',
    method: 'POST',
    path: '/bases/{baseId}/webhooks/{webhookId}/enableNotifications',
    auth,
    body: { kind: 'mode', schema: enableWebhookNotificationsBody },
    params: [baseId('grid_base_id', 'x'), webhookId('x')],
  },
  {
    toolSet,
    name: 'ListWebhookPayloads',
    description: 'Update messages of a webhook, from a cursor.',
    method: 'GET',
    path: '/bases/{baseId}/webhooks/{webhookId}/payloads',
    // The facts list no scope for this endpoint; its sibling webhook endpoints need webhook:manage.
    auth,
    params: [
      baseId('base_id'),
      webhookId(),
      {
        name: 'maximum_number_of_messages',
        in: 'query',
        as: 'limit',
        schema: { type: 'integer', minimum: 1, maximum: 50 },
        description: '',
      },
      {
        name: 'pagination_cursor',
        in: 'query',
        as: 'cursor',
        schema: { type: 'integer', minimum: 1 },
        description: '',
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
      baseId('base_identifier'),
      webhookId(),
      // The spec's JSON parameter is the request body itself; the API defines no fields in it
      // today, so `{}` is sent when it is left out.
      {
        name: 'webhook_request_body',
        in: 'body',
        as: WHOLE_BODY,
        schema: { type: 'object' },
        description: 'Usually omitted.',
      },
    ],
  },
];
