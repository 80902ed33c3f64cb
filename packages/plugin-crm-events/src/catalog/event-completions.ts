import type { ToolDeclaration } from '@toolhost/core';
import { sendBatchEventsBody, sendEventBody } from '../request-schemas.generated.js';
import { eventsReadAuth, sendAuth } from './auth.js';

const toolSet = 'CrmEventsApi';

const propertyPair = {
  type: 'object',
  minProperties: 1,
  maxProperties: 1,
  additionalProperties: { type: ['string', 'number', 'boolean'] },
} as const;

export const eventCompletionTools: ToolDeclaration[] = [
  {
    toolSet,
    name: 'RetrieveEventCompletions',
    description:
      'List event completions, filtered by CRM object, event type, instance ids, an event or unique object property, or time; paged by paging.next.after.',
    method: 'GET',
    path: '/events/v3/events',
    auth: eventsReadAuth,
    requires: { crm_object_id: ['crm_object_type'] },
    params: [
      {
        name: 'crm_object_id',
        in: 'query',
        as: 'objectId',
        schema: { type: 'integer' },
        description: 'CRM object id; use with crm_object_type.',
      },
      {
        name: 'crm_object_type',
        in: 'query',
        as: 'objectType',
        schema: { type: 'string' },
        description: 'CRM object type, e.g. contact.',
      },
      {
        name: 'event_instance_ids',
        in: 'query',
        as: 'id',
        schema: { type: 'array', items: { type: 'string' } },
        description: 'Only these event instance ids.',
      },
      {
        name: 'event_property_filter',
        in: 'query',
        as: 'property.',
        style: 'prefixed',
        schema: propertyPair,
        description:
          'One event property and its value, e.g. {"hs_url":"https://x.com/a b"}; sent as property.<name>=<value>.',
      },
      {
        name: 'event_type_name',
        in: 'query',
        as: 'eventType',
        schema: { type: 'string' },
        description: 'Event type name.',
      },
      {
        name: 'filter_events_occurred_before',
        in: 'query',
        as: 'occurredBefore',
        schema: { type: 'string', format: 'date-time' },
        description: 'Only events before this ISO 8601 date-time.',
      },
      {
        name: 'filter_occurred_after_datetime',
        in: 'query',
        as: 'occurredAfter',
        schema: { type: 'string', format: 'date-time' },
        description: 'Only events after this ISO 8601 date-time.',
      },
      {
        name: 'max_results_per_page',
        in: 'query',
        as: 'limit',
        schema: { type: 'integer', minimum: 1 },
        description: 'Page size.',
      },
      {
        name: 'paging_before_token',
        in: 'query',
        as: 'before',
        schema: { type: 'string' },
        description: 'Cursor for the previous page.',
      },
      {
        name: 'paging_cursor_token',
        in: 'query',
        as: 'after',
        schema: { type: 'string' },
        description: 'paging.next.after of the previous response.',
      },
      {
        name: 'sort_direction',
        in: 'query',
        as: 'sort',
        schema: { type: 'array', items: { type: 'string', enum: ['ASCENDING', 'DESCENDING'] } },
        description: 'Order by timestamp.',
      },
      {
        name: 'unique_identifier_property',
        in: 'query',
        as: 'objectProperty.',
        style: 'prefixed',
        schema: propertyPair,
        description:
          'A unique property of the CRM object, e.g. {"email":"a@b.com"} for contacts; sent as objectProperty.<name>=<value>.',
      },
    ],
  },
  {
    toolSet,
    name: 'ListEventTypes',
    description: 'List the names of the visible event types.',
    method: 'GET',
    path: '/events/v3/events/event-types',
    auth: eventsReadAuth,
  },
  {
    toolSet,
    name: 'SendBatchEvents',
    description: 'Send several event completions in one request (body: {inputs:[...]}).',
    method: 'POST',
    path: '/events/v3/send/batch',
    auth: sendAuth,
    body: { kind: 'mode', schema: sendBatchEventsBody },
  },
  {
    toolSet,
    name: 'SendEventData',
    description: 'Send one event completion.',
    method: 'POST',
    path: '/events/v3/send',
    auth: sendAuth,
    body: { kind: 'mode', schema: sendEventBody },
  },
];
