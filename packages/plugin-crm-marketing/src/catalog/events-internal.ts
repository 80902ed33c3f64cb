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
    description: 'Marketing event by internal id.',
    method: 'GET',
    path: `${eventsBase}/{objectId}`,
    auth: eventsReadAuth,
    params: [objectIdParam('marketing_event_object_id')],
  },
  {
    name: 'RemoveMarketingEvent',
    description: 'Deletes an event by internal id.',
    method: 'DELETE',
    path: `${eventsBase}/{objectId}`,
    auth: eventsWriteAuth,
    params: [objectIdParam('marketing_event_id')],
  },
  {
    name: 'ModifyEventInformation',
    description: 'Patches an event by internal id.',
    method: 'PATCH',
    path: `${eventsBase}/{objectId}`,
    auth: eventsWriteAuth,
    body: { kind: 'mode', schema: updateEventByObjectIdBody },
    params: [objectIdParam('event_internal_id', 'required')],
  },
  {
    name: 'GetMarketingEventLists',
    description: 'Contact lists linked to an event (internal id).',
    method: 'GET',
    path: `${eventsBase}/associations/{marketingEventId}/lists`,
    auth: eventsWriteAuth,
    params: [associationEventParam],
  },
  {
    name: 'GetMarketingEventParticipationsBreakdown',
    description: 'Participations of an event (internal id).',
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
    description: 'Participation counts by state (internal id).',
    method: 'GET',
    path: `${eventsBase}/participations/{marketingEventId}`,
    auth: eventsReadAuth,
    params: [participationEventParam],
  },
  {
    name: 'RegisterEventParticipation',
    // "logs participation by email address": the email-create endpoint, contacts by email.
    description: "Records contacts' state by email; internal event id.",
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
    description: "Records contacts' state by contact id; internal event id.",
    method: 'POST',
    path: `${eventsBase}/{objectId}/attendance/{subscriberState}/create`,
    auth: eventsWriteAuth,
    body: { kind: 'mode', schema: attendanceByObjectIdBody },
    params: [objectIdParam('marketing_event_id', 'required'), attendanceStateParam],
  },
  {
    name: 'GetAllMarketingEvents',
    description: 'Lists marketing events.',
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
    description: 'Updates several events by internal id.',
    method: 'POST',
    path: `${eventsBase}/batch/update`,
    auth: eventsWriteAuth,
    body: { kind: 'mode', schema: updateEventsBatchBody },
  },
  {
    name: 'DeleteMarketingEvents',
    // "deletes by object ID": batch/archive takes {inputs:[{objectId}]}.
    description: 'Deletes several events by internal id.',
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
    description: 'Deletes several events by appId and external ids.',
    method: 'POST',
    path: `${eventsBase}/events/delete`,
    auth: eventsWriteAuth,
    hints: { destructive: true },
    body: { kind: 'mode', schema: deleteEventsByExternalIdsBody },
  },
  {
    name: 'AssociateListWithMarketingEvent',
    description: 'Links a list to an event (internal id).',
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
    description: 'Unlinks a list from an event (internal id).',
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
    description: 'Creates a marketing event.',
    method: 'POST',
    path: `${eventsBase}/events`,
    auth: eventsWriteAuth,
    body: { kind: 'mode', schema: createEventBody },
  },
];
