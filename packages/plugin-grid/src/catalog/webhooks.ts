import type { ExecuteOnly, ParamDeclaration, ToolDeclaration } from '@toolhost/core';
import { createWebhookBody, enableWebhookNotificationsBody } from '../schemas/scim-webhooks.generated.js';
import { gridAuth } from './auth.js';
// Every base id is sent as `baseId`, the key the tool set paces requests by (5/s per base).
import { baseId, pathId } from './params.js';

const auth = gridAuth('webhook:manage');

function webhookId(executeOnly?: ExecuteOnly): ParamDeclaration {
  return pathId('webhook_id', 'webhookId', '', executeOnly);
}

export const webhookTools: ToolDeclaration[] = [
  {
    name: 'ListWebhooksForBase',
    description: 'Airtable: list all webhooks of a base with their status and expiry.',
    method: 'GET',
    path: '/bases/{baseId}/webhooks',
    auth,
    params: [baseId('base_identifier')],
  },
  {
    name: 'CreateGridWebhook',
    description: 'Airtable: create a webhook that notifies a URL of changes in a base.',
    method: 'POST',
    path: '/bases/{baseId}/webhooks',
    auth,
    body: { kind: 'mode', schema: createWebhookBody },
    params: [baseId('base_id', 'required')],
  },
  {
    name: 'DeleteGridWebhook',
    description: 'Airtable: delete a webhook of a base.',
    method: 'DELETE',
    path: '/bases/{baseId}/webhooks/{webhookId}',
    auth,
    params: [baseId('grid_base_id'), webhookId()],
  },
  {
    name: 'ToggleWebhookNotifications',
    description: "Airtable: turn a webhook's notification pings on or off (body {enable}).",
    method: 'POST',
    path: '/bases/{baseId}/webhooks/{webhookId}/enableNotifications',
    auth,
    body: { kind: 'mode', schema: enableWebhookNotificationsBody },
    params: [baseId('grid_base_id', 'required'), webhookId('required')],
  },
  {
    name: 'ListWebhookPayloads',
    description: "Airtable: list a webhook's change payloads (what changed), from a cursor.",
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
        apiName: 'limit',
        schema: { type: 'integer', minimum: 1, maximum: 50 },
        description: '',
      },
      {
        name: 'pagination_cursor',
        in: 'query',
        apiName: 'cursor',
        schema: { type: 'integer', minimum: 1 },
        description: '',
      },
    ],
  },
  {
    name: 'RefreshWebhookLifespan',
    description: "Airtable: extend an active webhook's expiration so it keeps running.",
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
        wholeBody: true,
        schema: { type: 'object' },
        description: 'Usually omitted.',
      },
    ],
  },
];
