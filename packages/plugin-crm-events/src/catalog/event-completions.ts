import type { ToolDeclaration } from '@toolhost/core';
import { sendBatchEventsBody, sendEventBody } from '../schemas/events.generated.js';
import { eventsReadAuth, sendAuth } from './auth.js';
import { propertyPair } from './params.js';

export const eventCompletionTools: ToolDeclaration[] = [
  {
    name: 'RetrieveEventCompletions',
    description:
      'HubSpot: list occurrences (completions) of events by contacts, companies or other CRM records, filtered by record, event type, instance ids, a property or time; paged by paging.next.after.',
    method: 'GET',
    path: '/events/v3/events',
    auth: eventsReadAuth,
    dependentRequired: { crm_object_id: ['crm_object_type'] },
    params: [
      {
        name: 'crm_object_id',
        in: 'query',
        apiName: 'objectId',
        schema: { type: 'integer' },
        description: 'CRM object id; use with crm_object_type.',
      },
      {
        name: 'crm_object_type',
        in: 'query',
        apiName: 'objectType',
        schema: { type: 'string' },
        description: 'CRM object type, e.g. contact.',
      },
      {
        name: 'event_instance_ids',
        in: 'query',
        apiName: 'id',
        schema: { type: 'array', items: { type: 'string' } },
        description: 'Only these event instance ids.',
      },
      {
        name: 'event_property_filter',
        in: 'query',
        keyPrefix: 'property.',
        style: 'prefixed',
        schema: propertyPair,
        description:
          'One event property and its value, e.g. {"hs_url":"https://x.com/a b"}; sent as property.<name>=<value>.',
      },
      {
        name: 'event_type_name',
        in: 'query',
        apiName: 'eventType',
        schema: { type: 'string' },
        description: 'Event type name.',
      },
      {
        name: 'filter_events_occurred_before',
        in: 'query',
        apiName: 'occurredBefore',
        schema: { type: 'string', format: 'date-time' },
        description: 'Only events before this ISO 8601 date-time.',
      },
      {
        name: 'filter_occurred_after_datetime',
        in: 'query',
        apiName: 'occurredAfter',
        schema: { type: 'string', format: 'date-time' },
        description: 'Only events after this ISO 8601 date-time.',
      },
      {
        name: 'max_results_per_page',
        in: 'query',
        apiName: 'limit',
        schema: { type: 'integer', minimum: 1 },
        description: 'Page size.',
      },
      {
        name: 'paging_before_token',
        in: 'query',
        apiName: 'before',
        schema: { type: 'string' },
        description: 'Cursor for the previous page.',
      },
      {
        name: 'paging_cursor_token',
        in: 'query',
        apiName: 'after',
        schema: { type: 'string' },
        description: 'paging.next.after of the previous response.',
      },
      {
        name: 'sort_direction',
        in: 'query',
        apiName: 'sort',
        schema: { type: 'array', items: { type: 'string', enum: ['ASCENDING', 'DESCENDING'] } },
        description: 'Order by timestamp.',
      },
      {
        name: 'unique_identifier_property',
        in: 'query',
        keyPrefix: 'objectProperty.',
        style: 'prefixed',
        schema: propertyPair,
        description:
          'A unique property of the CRM object, e.g. {"email":"a@b.com"} for contacts; sent as objectProperty.<name>=<value>.',
      },
    ],
  },
  {
    name: 'ListEventTypes',
    description: 'HubSpot: list the event type names whose occurrences can be queried.',
    method: 'GET',
    path: '/events/v3/events/event-types',
    auth: eventsReadAuth,
  },
  {
    name: 'SendBatchEvents',
    description: 'HubSpot: send many custom behavioral event occurrences in one batch (body {inputs:[...]}).',
    method: 'POST',
    path: '/events/v3/send/batch',
    auth: sendAuth,
    body: { kind: 'mode', schema: sendBatchEventsBody },
  },
  {
    name: 'SendEventData',
    description:
      'HubSpot: send (track) one custom behavioral event occurrence for a contact or other CRM record.',
    method: 'POST',
    path: '/events/v3/send',
    auth: sendAuth,
    body: { kind: 'mode', schema: sendEventBody },
  },
];
