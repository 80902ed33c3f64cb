import type { ExecuteOnly, ParamDeclaration, ToolDeclaration } from '@toolhost/core';
import {
  attendanceByExternalIdBody,
  attendanceByExternalIdEmailBody,
  subscriberStateEmailUpsertBody,
  subscriberStateUpsertBody,
  updateEventByExternalIdBody,
  upsertEventBody,
  upsertEventsBody,
} from '../schemas/events.generated.js';
import { eventsReadAuth, eventsWriteAuth } from './auth.js';
import { breakdownQuery, eventsBase, idSchema, subscriberStateSchema } from './params.js';

// Tools of the spec sections "Marketing events by external identity" and "Participation by
// contact": the event is named by the external event id its app gave it (whatever the spec
// calls the parameter: marketing_event_id, external_event_id, event_id,
// event_id_in_external_app), mostly with the external account id.

type Where = 'path' | 'query';

function accountParam(where: Where, executeOnly?: ExecuteOnly): ParamDeclaration {
  return {
    name: 'external_account_id',
    in: where,
    apiName: 'externalAccountId',
    ...(executeOnly ? { executeOnly } : { required: true }),
    schema: idSchema,
    description: '',
  };
}

function externalEventParam(name: string, executeOnly?: ExecuteOnly): ParamDeclaration {
  return {
    name,
    in: 'path',
    apiName: 'externalEventId',
    ...(executeOnly ? { executeOnly } : { required: true }),
    schema: idSchema,
    description: name === 'external_event_id' ? '' : 'External event id.',
  };
}

function stateParam(name: string): ParamDeclaration {
  return {
    name,
    in: 'path',
    apiName: 'subscriberState',
    executeOnly: 'required',
    schema: subscriberStateSchema,
    description: '',
  };
}

const listIdParam = (name: string): ParamDeclaration => ({
  name,
  in: 'path',
  apiName: 'listId',
  required: true,
  schema: idSchema,
  description: 'ILS list id.',
});

const byIdentity = `${eventsBase}/events/{externalEventId}`;
const associations = `${eventsBase}/associations/{externalAccountId}/{externalEventId}/lists`;
const participations = `${eventsBase}/participations/{externalAccountId}/{externalEventId}`;

export const externalEventTools: ToolDeclaration[] = [
  {
    name: 'GetMarketingEventDetails',
    description: 'HubSpot: get a marketing event by external account and event ids.',
    method: 'GET',
    path: byIdentity,
    auth: eventsReadAuth,
    params: [accountParam('query'), externalEventParam('marketing_event_id')],
  },
  {
    name: 'DeleteMarketingEvent',
    // The spec does not say which id marketing_event_id is here; the endpoint that takes an
    // external account id with it is DELETE /events/{externalEventId}.
    description: 'HubSpot: delete a marketing event by external account and event ids.',
    method: 'DELETE',
    path: byIdentity,
    auth: eventsWriteAuth,
    params: [accountParam('query'), externalEventParam('marketing_event_id')],
  },
  {
    name: 'UpsertMarketingEvent',
    description: 'HubSpot: create or replace a marketing event by external event id.',
    method: 'PUT',
    path: byIdentity,
    auth: eventsWriteAuth,
    body: { kind: 'mode', schema: upsertEventBody },
    params: [externalEventParam('external_event_id', 'required')],
  },
  {
    name: 'UpsertMarketingEvents',
    description: 'HubSpot: create or replace several marketing events by external ids in one batch.',
    method: 'POST',
    path: `${eventsBase}/events/upsert`,
    auth: eventsWriteAuth,
    body: { kind: 'mode', schema: upsertEventsBody },
  },
  {
    name: 'UpdateMarketingEventDetails',
    description: 'HubSpot: update a marketing event (name, times...) by external ids.',
    method: 'PATCH',
    path: byIdentity,
    auth: eventsWriteAuth,
    body: { kind: 'mode', schema: updateEventByExternalIdBody },
    params: [accountParam('query', 'required'), externalEventParam('external_event_id', 'required')],
  },
  {
    name: 'CancelMarketingEvent',
    description: 'HubSpot: mark a marketing event cancelled, by external ids.',
    method: 'POST',
    path: `${byIdentity}/cancel`,
    auth: eventsWriteAuth,
    params: [accountParam('query'), externalEventParam('external_event_id')],
  },
  {
    name: 'MarkMarketingEventCompleted',
    description: 'HubSpot: mark a marketing event completed with its start and end times, by external ids.',
    method: 'POST',
    path: `${byIdentity}/complete`,
    auth: eventsWriteAuth,
    body: { kind: 'fields' },
    params: [
      {
        name: 'event_end_datetime',
        in: 'body',
        bodyPath: 'endDateTime',
        required: true,
        schema: { type: 'string', format: 'date-time' },
        description: '',
      },
      {
        name: 'event_start_date_time',
        in: 'body',
        bodyPath: 'startDateTime',
        required: true,
        schema: { type: 'string', format: 'date-time' },
        description: '',
      },
      accountParam('query'),
      externalEventParam('marketing_event_id'),
    ],
  },
  {
    // The tool names come from a catalog that binds "search by external id" to the
    // identifiers lookup (every app's events) and "find" to the search endpoint (the
    // calling app's own events, `q` = the external event id).
    name: 'SearchMarketingEventsByExternalId',
    description: 'HubSpot: the marketing events of every app in the portal that have this external event id.',
    method: 'GET',
    path: `${eventsBase}/{externalEventId}/identifiers`,
    auth: eventsReadAuth,
    params: [externalEventParam('external_event_id')],
  },
  {
    name: 'FindCrmMarketingEvents',
    description: "HubSpot: search the calling app's own marketing events by external event id.",
    method: 'GET',
    path: `${eventsBase}/events/search`,
    auth: eventsReadAuth,
    params: [
      {
        name: 'external_event_id',
        in: 'query',
        apiName: 'q',
        required: true,
        schema: { type: 'string', minLength: 1 },
        description: '',
      },
    ],
  },
  {
    name: 'GetMarketingEventAssociatedLists',
    description: 'HubSpot: contact lists linked to a marketing event, by external ids.',
    method: 'GET',
    path: associations,
    auth: eventsWriteAuth,
    params: [accountParam('path'), externalEventParam('external_event_id')],
  },
  {
    name: 'LinkListToEvent',
    description: 'HubSpot: link a contact list to a marketing event, by external ids.',
    method: 'PUT',
    path: `${associations}/{listId}`,
    auth: eventsWriteAuth,
    params: [accountParam('path'), externalEventParam('external_event_id'), listIdParam('ils_list_id')],
  },
  {
    name: 'DisassociateMarketingEventList',
    description: 'HubSpot: unlink a contact list from a marketing event, by external ids.',
    method: 'DELETE',
    path: `${associations}/{listId}`,
    auth: eventsWriteAuth,
    params: [accountParam('path'), listIdParam('list_id'), externalEventParam('marketing_event_id')],
  },
  {
    name: 'GetMarketingEventParticipationBreakdown',
    description:
      'HubSpot: participations per contact (registered, attended...) of a marketing event, by external ids.',
    method: 'GET',
    path: `${participations}/breakdown`,
    auth: eventsReadAuth,
    params: [
      accountParam('path'),
      externalEventParam('external_event_id'),
      {
        name: 'contact_identifier',
        in: 'query',
        apiName: 'contactIdentifier',
        schema: { type: 'string' },
        description: 'Contact email or internal id.',
      },
      ...breakdownQuery({ cursor: 'pagination_cursor', state: 'participation_state_filter' }),
    ],
  },
  {
    name: 'GetEventParticipationCounters',
    description:
      'HubSpot: counts of registered, attended, cancelled and no-shows of a marketing event, by external ids.',
    method: 'GET',
    path: participations,
    auth: eventsReadAuth,
    params: [externalEventParam('event_id'), accountParam('path')],
  },
  {
    name: 'RecordMarketingEventAttendance',
    // Of the two attendance endpoints by external event id (externalAccountId optional, as the
    // spec's (xo)), this one pairs with RecordEventAttendance: create, contacts by CRM id (vid).
    description:
      "HubSpot: record contacts' attendance state (registered, attended or cancelled) by contact id, for a marketing event by external id.",
    method: 'POST',
    path: `${eventsBase}/attendance/{externalEventId}/{subscriberState}/create`,
    auth: eventsWriteAuth,
    body: { kind: 'mode', schema: attendanceByExternalIdBody },
    params: [
      externalEventParam('external_event_id', 'required'),
      stateParam('new_subscriber_state'),
      accountParam('query', 'optional'),
    ],
  },
  {
    name: 'RecordCrmSubscriberState',
    // The counterpart of RecordSubscriberState ("by email"): upsert, contacts by CRM id (vid).
    description:
      "HubSpot: upsert contacts' subscriber state (registered, attended or cancelled) by contact id, for a marketing event by external ids.",
    method: 'POST',
    path: `${byIdentity}/{subscriberState}/upsert`,
    auth: eventsWriteAuth,
    body: { kind: 'mode', schema: subscriberStateUpsertBody },
    params: [
      accountParam('query', 'required'),
      externalEventParam('event_id_in_external_app', 'required'),
      stateParam('subscriber_state'),
    ],
  },
  {
    name: 'RecordEventParticipationCrm',
    // The other attendance endpoint by external event id (externalAccountId optional, as the
    // spec's (xo)): email-create, contacts by email; it pairs with RegisterEventParticipation.
    description:
      "HubSpot: record contacts' attendance state (registered, attended or cancelled) by email, for a marketing event by external id.",
    method: 'POST',
    path: `${eventsBase}/attendance/{externalEventId}/{subscriberState}/email-create`,
    auth: eventsWriteAuth,
    body: { kind: 'mode', schema: attendanceByExternalIdEmailBody },
    params: [
      externalEventParam('external_event_id', 'required'),
      stateParam('subscriber_state'),
      accountParam('query', 'optional'),
    ],
  },
  {
    name: 'RecordSubscriberState',
    description:
      "HubSpot: upsert contacts' subscriber state (registered, attended or cancelled) by email, for a marketing event by external ids.",
    method: 'POST',
    path: `${byIdentity}/{subscriberState}/email-upsert`,
    auth: eventsWriteAuth,
    body: { kind: 'mode', schema: subscriberStateEmailUpsertBody },
    params: [
      accountParam('query', 'required'),
      externalEventParam('marketing_event_id', 'required'),
      stateParam('subscriber_state'),
    ],
  },
];

export const contactParticipationTools: ToolDeclaration[] = [
  {
    name: 'GetContactParticipationsBreakdown',
    description:
      "HubSpot: a contact's marketing event participations (webinars registered for, attended), by email or id.",
    method: 'GET',
    path: `${eventsBase}/participations/contacts/{contactIdentifier}/breakdown`,
    auth: eventsReadAuth,
    params: [
      {
        name: 'contact_identifier',
        in: 'path',
        apiName: 'contactIdentifier',
        required: true,
        schema: idSchema,
        description: 'Contact email or internal id.',
      },
      ...breakdownQuery({ cursor: 'pagination_cursor', state: 'participation_state' }),
    ],
  },
];
