import type { ExecuteOnly, ParamDeclaration, ToolDeclaration } from '@toolhost/core';
import {
  archiveEventsBatchBody,
  attendanceByObjectIdBody,
  attendanceByObjectIdEmailBody,
  createEventBody,
  deleteEventsByExternalIdsBody,
  updateEventByObjectIdBody,
  updateEventsBatchBody,
} from '../schemas/events.generated.js';
import { eventsReadAuth, eventsWriteAuth } from './auth.js';
import { breakdownQuery, eventsBase, idSchema, subscriberStateSchema } from './params.js';

// Tools of the spec section "Marketing events by internal ID": the event is named by its CRM
// object id, whatever the spec calls the parameter (marketing_event_object_id,
// marketing_event_id, event_internal_id).

const objectIdParam = (name: string, executeOnly?: ExecuteOnly): ParamDeclaration => ({
  name,
  in: 'path',
  apiName: 'objectId',
  ...(executeOnly ? { executeOnly } : { required: true }),
  schema: idSchema,
  description: name === 'event_internal_id' ? '' : 'Internal event id.',
});

/** The /associations/{marketingEventId} and /participations/{marketingEventId} endpoints also take the internal id. */
const associationEventParam: ParamDeclaration = {
  name: 'marketing_event_id',
  in: 'path',
  apiName: 'marketingEventId',
  required: true,
  schema: idSchema,
  description: 'Internal event id.',
};

const participationEventParam: ParamDeclaration = {
  ...associationEventParam,
  schema: { type: 'integer' },
};

const attendanceStateParam: ParamDeclaration = {
  name: 'attendance_state',
  in: 'path',
  apiName: 'subscriberState',
  executeOnly: 'required',
  schema: subscriberStateSchema,
  description: '',
};

export const internalEventTools: ToolDeclaration[] = [
  {
    name: 'FetchEventDetails',
    description: 'HubSpot: get a marketing event (webinar, conference) by its internal object id.',
    method: 'GET',
    path: `${eventsBase}/{objectId}`,
    auth: eventsReadAuth,
    params: [objectIdParam('marketing_event_object_id')],
  },
  {
    name: 'RemoveMarketingEvent',
    description: 'HubSpot: delete a marketing event by its internal object id.',
    method: 'DELETE',
    path: `${eventsBase}/{objectId}`,
    auth: eventsWriteAuth,
    params: [objectIdParam('marketing_event_id')],
  },
  {
    name: 'ModifyEventInformation',
    description: 'HubSpot: update a marketing event (name, dates...) by its internal object id.',
    method: 'PATCH',
    path: `${eventsBase}/{objectId}`,
    auth: eventsWriteAuth,
    body: { kind: 'mode', schema: updateEventByObjectIdBody },
    params: [objectIdParam('event_internal_id', 'required')],
  },
  {
    name: 'GetMarketingEventLists',
    description: 'HubSpot: contact lists linked to a marketing event, by internal object id.',
    method: 'GET',
    path: `${eventsBase}/associations/{marketingEventId}/lists`,
    auth: eventsWriteAuth,
    params: [associationEventParam],
  },
  {
    name: 'GetMarketingEventParticipationsBreakdown',
    description:
      'HubSpot: participations per contact (registered, attended...) of a marketing event, by internal object id.',
    method: 'GET',
    path: `${eventsBase}/participations/{marketingEventId}/breakdown`,
    auth: eventsReadAuth,
    params: [
      participationEventParam,
      {
        name: 'contact_identifier',
        in: 'query',
        apiName: 'contactIdentifier',
        schema: { type: 'string' },
        description: 'Contact email or internal id.',
      },
      ...breakdownQuery({ cursor: 'last_retrieved_position_cursor', state: 'participation_state' }),
    ],
  },
  {
    name: 'GetMarketingEventParticipationCounters',
    description:
      'HubSpot: counts of registered, attended, cancelled and no-shows of a marketing event, by internal object id.',
    method: 'GET',
    path: `${eventsBase}/participations/{marketingEventId}`,
    auth: eventsReadAuth,
    params: [participationEventParam],
  },
  {
    name: 'RegisterEventParticipation',
    // "logs participation by email address": the email-create endpoint, contacts by email.
    description:
      "HubSpot: record contacts' attendance state (registered, attended or cancelled) by email, for a marketing event by internal object id.",
    method: 'POST',
    path: `${eventsBase}/{objectId}/attendance/{subscriberState}/email-create`,
    auth: eventsWriteAuth,
    body: { kind: 'mode', schema: attendanceByObjectIdEmailBody },
    params: [objectIdParam('marketing_event_id', 'required'), attendanceStateParam],
  },
  {
    name: 'RecordEventAttendance',
    // The spec's counterpart of RegisterEventParticipation without "by email": the create
    // endpoint, contacts by their CRM id (vid).
    description:
      "HubSpot: record contacts' attendance state (registered, attended or cancelled) by contact id, for a marketing event by internal object id.",
    method: 'POST',
    path: `${eventsBase}/{objectId}/attendance/{subscriberState}/create`,
    auth: eventsWriteAuth,
    body: { kind: 'mode', schema: attendanceByObjectIdBody },
    params: [objectIdParam('marketing_event_id', 'required'), attendanceStateParam],
  },
  {
    name: 'GetAllMarketingEvents',
    description: 'HubSpot: list all marketing events (webinars, conferences), paged.',
    method: 'GET',
    path: eventsBase,
    auth: eventsReadAuth,
    params: [
      {
        name: 'cursor_position_after',
        in: 'query',
        apiName: 'after',
        schema: { type: 'string' },
        description: 'paging.next.after.',
      },
      {
        name: 'response_limit',
        in: 'query',
        apiName: 'limit',
        schema: { type: 'integer', minimum: 10, maximum: 100 },
        description: 'Page size.',
      },
    ],
  },
  {
    name: 'UpdateMarketingEventsBatch',
    description: 'HubSpot: update several marketing events by internal object id in one batch.',
    method: 'POST',
    path: `${eventsBase}/batch/update`,
    auth: eventsWriteAuth,
    body: { kind: 'mode', schema: updateEventsBatchBody },
  },
  {
    name: 'DeleteMarketingEvents',
    // "deletes by object ID": batch/archive takes {inputs:[{objectId}]}.
    description: 'HubSpot: delete several marketing events by internal object id in one batch.',
    method: 'POST',
    path: `${eventsBase}/batch/archive`,
    auth: eventsWriteAuth,
    hints: { destructive: true },
    body: { kind: 'mode', schema: archiveEventsBatchBody },
  },
  {
    name: 'RemoveMarketingEvents',
    // "deletes by IDs" is the other batch delete, events/delete, which names each event by
    // appId + externalAccountId + externalEventId.
    description: 'HubSpot: delete several marketing events by app id and external event ids.',
    method: 'POST',
    path: `${eventsBase}/events/delete`,
    auth: eventsWriteAuth,
    hints: { destructive: true },
    body: { kind: 'mode', schema: deleteEventsByExternalIdsBody },
  },
  {
    name: 'AssociateListWithMarketingEvent',
    description: 'HubSpot: link a contact list to a marketing event, by internal object id.',
    method: 'PUT',
    path: `${eventsBase}/associations/{marketingEventId}/lists/{listId}`,
    auth: eventsWriteAuth,
    params: [
      {
        name: 'list_id',
        in: 'path',
        apiName: 'listId',
        required: true,
        schema: idSchema,
        description: 'ILS list id.',
      },
      associationEventParam,
    ],
  },
  {
    name: 'DisassociateListFromMarketingEvent',
    description: 'HubSpot: unlink a contact list from a marketing event, by internal object id.',
    method: 'DELETE',
    path: `${eventsBase}/associations/{marketingEventId}/lists/{listId}`,
    auth: eventsWriteAuth,
    params: [
      {
        name: 'list_identifier',
        in: 'path',
        apiName: 'listId',
        required: true,
        schema: idSchema,
        description: 'ILS list id.',
      },
      associationEventParam,
    ],
  },
  {
    name: 'CreateMarketingEvent',
    description: "HubSpot: create a marketing event (webinar, conference) from your app's external ids.",
    method: 'POST',
    path: `${eventsBase}/events`,
    auth: eventsWriteAuth,
    body: { kind: 'mode', schema: createEventBody },
  },
];
