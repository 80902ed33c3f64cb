import type { ParamDeclaration, ToolDeclaration } from '@toolhost/core';
import {
  archiveEventsBatchBody,
  attendanceByObjectIdBody,
  attendanceByObjectIdEmailBody,
  createEventBody,
  deleteEventsByExternalIdsBody,
  updateEventByObjectIdBody,
  updateEventsBatchBody,
} from '../schemas/events.generated.js';
import { eventsReadAuth, eventsWriteAuth } from './auth-events.js';
import { breakdownQuery, eventsBase, idSchema, subscriberStateSchema, toolSet } from './events-shared.js';

// Tools of the spec section "Marketing events by internal ID": the event is named by its CRM
// object id, whatever the spec calls the parameter (marketing_event_object_id,
// marketing_event_id, event_internal_id).

const objectIdParam = (name: string, mode?: 'x'): ParamDeclaration => ({
  name,
  in: 'path',
  as: 'objectId',
  ...(mode ? { mode } : { required: true }),
  schema: idSchema,
  description: name === 'event_internal_id' ? '' : 'Internal event id.',
});

/** The /associations/{marketingEventId} and /participations/{marketingEventId} endpoints also take the internal id. */
const associationEventParam: ParamDeclaration = {
  name: 'marketing_event_id',
  in: 'path',
  as: 'marketingEventId',
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
  as: 'subscriberState',
  mode: 'x',
  schema: subscriberStateSchema,
  description: '',
};

export const internalEventTools: ToolDeclaration[] = [
  {
    toolSet,
    name: 'FetchEventDetails',
    description: 'Marketing event by internal id.',
    method: 'GET',
    path: `${eventsBase}/{objectId}`,
    auth: eventsReadAuth,
    params: [objectIdParam('marketing_event_object_id')],
  },
  {
    toolSet,
    name: 'RemoveMarketingEvent',
    description: 'Deletes an event by internal id.',
    method: 'DELETE',
    path: `${eventsBase}/{objectId}`,
    auth: eventsWriteAuth,
    params: [objectIdParam('marketing_event_id')],
  },
  {
    toolSet,
    name: 'ModifyEventInformation',
    description: 'Patches an event by internal id.',
    method: 'PATCH',
    path: `${eventsBase}/{objectId}`,
    auth: eventsWriteAuth,
    body: { kind: 'mode', schema: updateEventByObjectIdBody },
    params: [objectIdParam('event_internal_id', 'x')],
  },
  {
    toolSet,
    name: 'GetMarketingEventLists',
    description: 'Contact lists linked to an event (internal id).',
    method: 'GET',
    path: `${eventsBase}/associations/{marketingEventId}/lists`,
    auth: eventsWriteAuth,
    params: [associationEventParam],
  },
  {
    toolSet,
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
        as: 'contactIdentifier',
        schema: { type: 'string' },
        description: 'Contact email or internal id.',
      },
      ...breakdownQuery({ cursor: 'last_retrieved_position_cursor', state: 'participation_state' }),
    ],
  },
  {
    toolSet,
    name: 'GetMarketingEventParticipationCounters',
    description: 'Participation counts by state (internal id).',
    method: 'GET',
    path: `${eventsBase}/participations/{marketingEventId}`,
    auth: eventsReadAuth,
    params: [participationEventParam],
  },
  {
    toolSet,
    name: 'RegisterEventParticipation',
    // "logs participation by email address": the email-create endpoint, contacts by email.
    description: "Records contacts' state by email; internal event id.",
    method: 'POST',
    path: `${eventsBase}/{objectId}/attendance/{subscriberState}/email-create`,
    auth: eventsWriteAuth,
    body: { kind: 'mode', schema: attendanceByObjectIdEmailBody },
    params: [objectIdParam('marketing_event_id', 'x'), attendanceStateParam],
  },
  {
    toolSet,
    name: 'RecordEventAttendance',
    // The spec's counterpart of RegisterEventParticipation without "by email": the create
    // endpoint, contacts by their CRM id (vid).
    description: "Records contacts' state by contact id; internal event id.",
    method: 'POST',
    path: `${eventsBase}/{objectId}/attendance/{subscriberState}/create`,
    auth: eventsWriteAuth,
    body: { kind: 'mode', schema: attendanceByObjectIdBody },
    params: [objectIdParam('marketing_event_id', 'x'), attendanceStateParam],
  },
  {
    toolSet,
    name: 'GetAllMarketingEvents',
    description: 'Lists marketing events.',
    method: 'GET',
    path: eventsBase,
    auth: eventsReadAuth,
    params: [
      {
        name: 'cursor_position_after',
        in: 'query',
        as: 'after',
        schema: { type: 'string' },
        description: 'paging.next.after.',
      },
      {
        name: 'response_limit',
        in: 'query',
        as: 'limit',
        schema: { type: 'integer', minimum: 10, maximum: 100 },
        description: 'Page size.',
      },
    ],
  },
  {
    toolSet,
    name: 'UpdateMarketingEventsBatch',
    description: 'Updates several events by internal id.',
    method: 'POST',
    path: `${eventsBase}/batch/update`,
    auth: eventsWriteAuth,
    body: { kind: 'mode', schema: updateEventsBatchBody },
  },
  {
    toolSet,
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
    toolSet,
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
    toolSet,
    name: 'AssociateListWithMarketingEvent',
    description: 'Links a list to an event (internal id).',
    method: 'PUT',
    path: `${eventsBase}/associations/{marketingEventId}/lists/{listId}`,
    auth: eventsWriteAuth,
    params: [
      {
        name: 'list_id',
        in: 'path',
        as: 'listId',
        required: true,
        schema: idSchema,
        description: 'ILS list id.',
      },
      associationEventParam,
    ],
  },
  {
    toolSet,
    name: 'DisassociateListFromMarketingEvent',
    description: 'Unlinks a list from an event (internal id).',
    method: 'DELETE',
    path: `${eventsBase}/associations/{marketingEventId}/lists/{listId}`,
    auth: eventsWriteAuth,
    params: [
      {
        name: 'list_identifier',
        in: 'path',
        as: 'listId',
        required: true,
        schema: idSchema,
        description: 'ILS list id.',
      },
      associationEventParam,
    ],
  },
  {
    toolSet,
    name: 'CreateMarketingEvent',
    description: 'Creates a marketing event.',
    method: 'POST',
    path: `${eventsBase}/events`,
    auth: eventsWriteAuth,
    body: { kind: 'mode', schema: createEventBody },
  },
];
