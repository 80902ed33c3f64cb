import { catalogSuite, executeArgs, type RequestCase } from '@toolhost/testing';
import { describe, expect, it } from 'vitest';
import * as schemas from '../src/schemas/events.generated.js';
import { suiteOptions } from './suite-options.js';

const BASE = '/marketing/v3/marketing-events';

const event = {
  customProperties: [{ name: 'webinar_room', value: 'B' }],
  eventName: 'Launch webinar',
  eventOrganizer: 'Acme',
  externalAccountId: 'acct-1',
  externalEventId: 'ext-9',
  startDateTime: '2025-03-01T10:00:00Z',
};
const patch = { customProperties: [{ name: 'webinar_room', value: 'C' }], eventName: 'Renamed' };
const byVid = { inputs: [{ vid: 501, interactionDateTime: 1735689600000, properties: {} }] };
const byEmail = {
  inputs: [
    { email: 'a@example.com', interactionDateTime: 1735689600000, properties: {}, contactProperties: {} },
  ],
};

const cases: RequestCase[] = [
  // Marketing events by internal ID
  {
    tool: 'FetchEventDetails',
    args: { marketing_event_object_id: '4001' },
    method: 'GET',
    path: `${BASE}/4001`,
  },
  {
    tool: 'RemoveMarketingEvent',
    args: { marketing_event_id: '4001' },
    method: 'DELETE',
    path: `${BASE}/4001`,
  },
  {
    tool: 'ModifyEventInformation',
    args: executeArgs(patch, { event_internal_id: '4001' }),
    method: 'PATCH',
    path: `${BASE}/4001`,
    body: patch,
  },
  {
    tool: 'GetMarketingEventLists',
    args: { marketing_event_id: '4001' },
    method: 'GET',
    path: `${BASE}/associations/4001/lists`,
  },
  {
    tool: 'GetMarketingEventParticipationsBreakdown',
    args: {
      marketing_event_id: 4001,
      contact_identifier: 'a@example.com',
      last_retrieved_position_cursor: 'c-2',
      participation_state: 'NO_SHOW',
      response_size_limit: 100,
    },
    method: 'GET',
    path: `${BASE}/participations/4001/breakdown`,
    query: [
      ['contactIdentifier', 'a@example.com'],
      ['after', 'c-2'],
      ['state', 'NO_SHOW'],
      ['limit', '100'],
    ],
  },
  {
    tool: 'GetMarketingEventParticipationCounters',
    args: { marketing_event_id: 4001 },
    method: 'GET',
    path: `${BASE}/participations/4001`,
  },
  {
    tool: 'RegisterEventParticipation',
    args: executeArgs(byEmail, { marketing_event_id: '4001', attendance_state: 'register' }),
    method: 'POST',
    path: `${BASE}/4001/attendance/register/email-create`,
    body: byEmail,
  },
  {
    tool: 'RecordEventAttendance',
    args: executeArgs(byVid, { marketing_event_id: '4001', attendance_state: 'attend' }),
    method: 'POST',
    path: `${BASE}/4001/attendance/attend/create`,
    body: byVid,
  },
  {
    tool: 'GetAllMarketingEvents',
    args: { cursor_position_after: 'c-1', response_limit: 10 },
    method: 'GET',
    path: BASE,
    query: [
      ['after', 'c-1'],
      ['limit', '10'],
    ],
  },
  {
    tool: 'UpdateMarketingEventsBatch',
    args: executeArgs({ inputs: [{ objectId: '4001', customProperties: [], eventName: 'X' }] }),
    method: 'POST',
    path: `${BASE}/batch/update`,
    body: { inputs: [{ objectId: '4001', customProperties: [], eventName: 'X' }] },
  },
  {
    tool: 'DeleteMarketingEvents',
    args: executeArgs({ inputs: [{ objectId: '4001' }] }),
    method: 'POST',
    path: `${BASE}/batch/archive`,
    body: { inputs: [{ objectId: '4001' }] },
  },
  {
    tool: 'RemoveMarketingEvents',
    args: executeArgs({ inputs: [{ appId: 77, externalAccountId: 'acct-1', externalEventId: 'ext-9' }] }),
    method: 'POST',
    path: `${BASE}/events/delete`,
    body: { inputs: [{ appId: 77, externalAccountId: 'acct-1', externalEventId: 'ext-9' }] },
  },
  {
    tool: 'AssociateListWithMarketingEvent',
    args: { list_id: '88', marketing_event_id: '4001' },
    method: 'PUT',
    path: `${BASE}/associations/4001/lists/88`,
  },
  {
    tool: 'DisassociateListFromMarketingEvent',
    args: { list_identifier: '88', marketing_event_id: '4001' },
    method: 'DELETE',
    path: `${BASE}/associations/4001/lists/88`,
  },
  {
    tool: 'CreateMarketingEvent',
    args: executeArgs(event),
    method: 'POST',
    path: `${BASE}/events`,
    body: event,
  },
  // Marketing events by external identity
  {
    tool: 'GetMarketingEventDetails',
    args: { external_account_id: 'acct-1', marketing_event_id: 'ext-9' },
    method: 'GET',
    path: `${BASE}/events/ext-9`,
    query: [['externalAccountId', 'acct-1']],
  },
  {
    tool: 'DeleteMarketingEvent',
    args: { external_account_id: 'acct-1', marketing_event_id: 'ext-9' },
    method: 'DELETE',
    path: `${BASE}/events/ext-9`,
    query: [['externalAccountId', 'acct-1']],
  },
  {
    tool: 'UpsertMarketingEvent',
    args: executeArgs(event, { external_event_id: 'ext-9' }),
    method: 'PUT',
    path: `${BASE}/events/ext-9`,
    body: event,
  },
  {
    tool: 'UpsertMarketingEvents',
    args: executeArgs({ inputs: [event] }),
    method: 'POST',
    path: `${BASE}/events/upsert`,
    body: { inputs: [event] },
  },
  {
    tool: 'UpdateMarketingEventDetails',
    args: executeArgs(patch, { external_account_id: 'acct-1', external_event_id: 'ext-9' }),
    method: 'PATCH',
    path: `${BASE}/events/ext-9`,
    query: [['externalAccountId', 'acct-1']],
    body: patch,
  },
  {
    tool: 'CancelMarketingEvent',
    args: { external_account_id: 'acct-1', external_event_id: 'ext-9' },
    method: 'POST',
    path: `${BASE}/events/ext-9/cancel`,
    query: [['externalAccountId', 'acct-1']],
  },
  {
    tool: 'MarkMarketingEventCompleted',
    args: {
      event_end_datetime: '2025-03-01T12:00:00Z',
      event_start_date_time: '2025-03-01T10:00:00Z',
      external_account_id: 'acct-1',
      marketing_event_id: 'ext-9',
    },
    method: 'POST',
    path: `${BASE}/events/ext-9/complete`,
    query: [['externalAccountId', 'acct-1']],
    body: { endDateTime: '2025-03-01T12:00:00Z', startDateTime: '2025-03-01T10:00:00Z' },
  },
  {
    tool: 'SearchMarketingEventsByExternalId',
    args: { external_event_id: 'ext-9' },
    method: 'GET',
    path: `${BASE}/ext-9/identifiers`,
  },
  {
    tool: 'FindCrmMarketingEvents',
    args: { external_event_id: 'ext 9&x' },
    method: 'GET',
    path: `${BASE}/events/search`,
    query: [['q', 'ext 9&x']],
  },
  {
    tool: 'GetMarketingEventAssociatedLists',
    args: { external_account_id: 'acct-1', external_event_id: 'ext-9' },
    method: 'GET',
    path: `${BASE}/associations/acct-1/ext-9/lists`,
  },
  {
    tool: 'LinkListToEvent',
    args: { external_account_id: 'acct-1', external_event_id: 'ext-9', ils_list_id: '88' },
    method: 'PUT',
    path: `${BASE}/associations/acct-1/ext-9/lists/88`,
  },
  {
    tool: 'DisassociateMarketingEventList',
    args: { external_account_id: 'acct-1', list_id: '88', marketing_event_id: 'ext-9' },
    method: 'DELETE',
    path: `${BASE}/associations/acct-1/ext-9/lists/88`,
  },
  {
    tool: 'GetMarketingEventParticipationBreakdown',
    args: {
      external_account_id: 'acct-1',
      external_event_id: 'ext-9',
      contact_identifier: '501',
      pagination_cursor: 'c-3',
      participation_state_filter: 'ATTENDED',
      response_size_limit: 1,
    },
    method: 'GET',
    path: `${BASE}/participations/acct-1/ext-9/breakdown`,
    query: [
      ['contactIdentifier', '501'],
      ['after', 'c-3'],
      ['state', 'ATTENDED'],
      ['limit', '1'],
    ],
  },
  {
    tool: 'GetEventParticipationCounters',
    args: { event_id: 'ext-9', external_account_id: 'acct-1' },
    method: 'GET',
    path: `${BASE}/participations/acct-1/ext-9`,
  },
  {
    tool: 'RecordMarketingEventAttendance',
    args: executeArgs(byVid, {
      external_event_id: 'ext-9',
      new_subscriber_state: 'cancel',
      external_account_id: 'acct-1',
    }),
    method: 'POST',
    path: `${BASE}/attendance/ext-9/cancel/create`,
    query: [['externalAccountId', 'acct-1']],
    body: byVid,
  },
  {
    tool: 'RecordCrmSubscriberState',
    args: executeArgs(byVid, {
      external_account_id: 'acct-1',
      event_id_in_external_app: 'ext-9',
      subscriber_state: 'register',
    }),
    method: 'POST',
    path: `${BASE}/events/ext-9/register/upsert`,
    query: [['externalAccountId', 'acct-1']],
    body: byVid,
  },
  {
    tool: 'RecordEventParticipationCrm',
    // external_account_id is (xo): left out here, so no query at all.
    args: executeArgs(byEmail, { external_event_id: 'ext-9', subscriber_state: 'attend' }),
    method: 'POST',
    path: `${BASE}/attendance/ext-9/attend/email-create`,
    body: byEmail,
  },
  {
    tool: 'RecordSubscriberState',
    args: executeArgs(byEmail, {
      external_account_id: 'acct-1',
      marketing_event_id: 'ext-9',
      subscriber_state: 'cancel',
    }),
    method: 'POST',
    path: `${BASE}/events/ext-9/cancel/email-upsert`,
    query: [['externalAccountId', 'acct-1']],
    body: byEmail,
  },
  // Participation by contact
  {
    tool: 'GetContactParticipationsBreakdown',
    args: {
      contact_identifier: 'a@example.com',
      pagination_cursor: 'c-4',
      participation_state: 'REGISTERED',
      response_size_limit: 25,
    },
    method: 'GET',
    path: `${BASE}/participations/contacts/a@example.com/breakdown`,
    query: [
      ['after', 'c-4'],
      ['state', 'REGISTERED'],
      ['limit', '25'],
    ],
  },
];

const modeSchemas: Record<string, unknown> = {
  ModifyEventInformation: schemas.updateEventByObjectIdBody,
  RegisterEventParticipation: schemas.attendanceByObjectIdEmailBody,
  RecordEventAttendance: schemas.attendanceByObjectIdBody,
  UpdateMarketingEventsBatch: schemas.updateEventsBatchBody,
  DeleteMarketingEvents: schemas.archiveEventsBatchBody,
  RemoveMarketingEvents: schemas.deleteEventsByExternalIdsBody,
  CreateMarketingEvent: schemas.createEventBody,
  UpsertMarketingEvent: schemas.upsertEventBody,
  UpsertMarketingEvents: schemas.upsertEventsBody,
  UpdateMarketingEventDetails: schemas.updateEventByExternalIdBody,
  RecordMarketingEventAttendance: schemas.attendanceByExternalIdBody,
  RecordCrmSubscriberState: schemas.subscriberStateUpsertBody,
  RecordEventParticipationCrm: schemas.attendanceByExternalIdEmailBody,
  RecordSubscriberState: schemas.subscriberStateEmailUpsertBody,
};

/** Required parameters as the catalog lists them (mode tools: only `mode`). */
const required: Record<string, string[]> = {
  FetchEventDetails: ['marketing_event_object_id'],
  GetMarketingEventParticipationsBreakdown: ['marketing_event_id'],
  GetAllMarketingEvents: [],
  AssociateListWithMarketingEvent: ['list_id', 'marketing_event_id'],
  DisassociateListFromMarketingEvent: ['list_identifier', 'marketing_event_id'],
  GetMarketingEventDetails: ['external_account_id', 'marketing_event_id'],
  MarkMarketingEventCompleted: [
    'event_end_datetime',
    'event_start_date_time',
    'external_account_id',
    'marketing_event_id',
  ],
  SearchMarketingEventsByExternalId: ['external_event_id'],
  FindCrmMarketingEvents: ['external_event_id'],
  LinkListToEvent: ['external_account_id', 'external_event_id', 'ils_list_id'],
  DisassociateMarketingEventList: ['external_account_id', 'list_id', 'marketing_event_id'],
  GetEventParticipationCounters: ['event_id', 'external_account_id'],
  GetContactParticipationsBreakdown: ['contact_identifier'],
  RecordSubscriberState: ['mode'],
  CreateMarketingEvent: ['mode'],
};

const api = catalogSuite(suiteOptions);
const { call, errorOf } = api;

describe('CrmMarketingApi marketing events over MCP', () => {
  api.itListsTools(
    'lists the 34 event tools with their required parameters and hints',
    {
      includes: cases.map((c) => c.tool),
      required,
      properties: {
        RecordMarketingEventAttendance: [
          'mode',
          'request_body',
          'external_event_id',
          'new_subscriber_state',
          'external_account_id',
        ],
      },
      propertySchemas: {
        GetContactParticipationsBreakdown: {
          response_size_limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
          participation_state: { enum: ['REGISTERED', 'CANCELLED', 'ATTENDED', 'NO_SHOW'] },
        },
        GetAllMarketingEvents: { response_limit: { type: 'integer', minimum: 10, maximum: 100 } },
        GetMarketingEventParticipationCounters: { marketing_event_id: { type: 'integer' } },
      },
      hints: {
        DeleteMarketingEvents: { destructiveHint: true },
        RemoveMarketingEvents: { destructiveHint: true },
        SearchMarketingEventsByExternalId: { readOnlyHint: true },
        FindCrmMarketingEvents: { readOnlyHint: true },
        CreateMarketingEvent: { readOnlyHint: false },
      },
    },
    () => {
      expect(cases).toHaveLength(34);
    },
  );

  api.itSendsRequests(cases);

  api.itReturnsRequestSchemas(modeSchemas);

  it.each([
    [
      'RemoveMarketingEvent',
      { marketing_event_id: '../../../crm/v3/objects/contacts/1' },
      `${BASE}/..%2F..%2F..%2Fcrm%2Fv3%2Fobjects%2Fcontacts%2F1`,
      [],
    ],
    [
      'GetMarketingEventDetails',
      { external_account_id: 'acct-1', marketing_event_id: 'a/../b?x=1#f' },
      `${BASE}/events/a%2F..%2Fb%3Fx%3D1%23f`,
      [['externalAccountId', 'acct-1']],
    ],
    [
      'DisassociateMarketingEventList',
      { external_account_id: 'acct-1', list_id: '88', marketing_event_id: '../e/f' },
      `${BASE}/associations/acct-1/..%2Fe%2Ff/lists/88`,
      [],
    ],
  ])(
    '%s percent-encodes a marketing_event_id with ../ and /, never changing the path',
    async (tool, args, rawPath, query) => {
      const result = await call(tool as string, args as Record<string, unknown>);
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(api.upstream.requests).toHaveLength(1);
      expect(api.upstream.requests[0]!.rawPath).toBe(rawPath);
      expect(api.upstream.requests[0]!.query).toEqual(query);
    },
  );

  it('refuses a bare dot-segment id and sends nothing', async () => {
    const result = await call('RemoveMarketingEvent', { marketing_event_id: '..' });
    expect(errorOf(result)).toMatchObject({
      code: 'invalid_argument',
      message: expect.stringContaining("'marketing_event_id'"),
    });
    expect(api.upstream.requests).toHaveLength(0);
  });
});

describe('CrmMarketingApi marketing events bad input', () => {
  api.itRejectsBadInput([
    [
      'response_size_limit 101',
      'GetMarketingEventParticipationsBreakdown',
      { marketing_event_id: 1, response_size_limit: 101 },
      /'response_size_limit' must be <= 100/,
    ],
    [
      'response_size_limit 0',
      'GetContactParticipationsBreakdown',
      { contact_identifier: 'a@example.com', response_size_limit: 0 },
      /'response_size_limit' must be >= 1/,
    ],
    [
      'response_size_limit 101 (external)',
      'GetMarketingEventParticipationBreakdown',
      { external_account_id: 'a', external_event_id: 'e', response_size_limit: 101 },
      /'response_size_limit' must be <= 100/,
    ],
    ['response_limit 9', 'GetAllMarketingEvents', { response_limit: 9 }, /'response_limit' must be >= 10/],
    [
      'response_limit 101',
      'GetAllMarketingEvents',
      { response_limit: 101 },
      /'response_limit' must be <= 100/,
    ],
    [
      'unknown participation state',
      'GetContactParticipationsBreakdown',
      { contact_identifier: 'a@example.com', participation_state: 'registered' },
      /'participation_state' must be one of: "REGISTERED"/,
    ],
    [
      'non-integer internal id of a participation endpoint',
      'GetMarketingEventParticipationCounters',
      { marketing_event_id: 'abc' },
      /'marketing_event_id' must be of type integer/,
    ],
    [
      'bad attendance_state',
      'RecordEventAttendance',
      executeArgs(byVid, { marketing_event_id: '4001', attendance_state: 'attended' }),
      /'attendance_state' must be one of: "register", "attend", "cancel"/,
    ],
    [
      'bad subscriber_state',
      'RecordSubscriberState',
      executeArgs(byEmail, {
        external_account_id: 'a',
        marketing_event_id: 'e',
        subscriber_state: 'REGISTERED',
      }),
      /'subscriber_state' must be one of/,
    ],
    [
      'missing (x) attendance_state',
      'RegisterEventParticipation',
      executeArgs(byEmail, { marketing_event_id: '4001' }),
      /'attendance_state' is required when mode is execute/,
    ],
    [
      'missing (x) external_account_id',
      'RecordCrmSubscriberState',
      executeArgs(byVid, { event_id_in_external_app: 'e', subscriber_state: 'attend' }),
      /'external_account_id' is required when mode is execute/,
    ],
    [
      'missing request_body',
      'CreateMarketingEvent',
      { mode: 'execute' },
      /'request_body' is required when mode is execute/,
    ],
    [
      'invalid JSON request_body',
      'UpsertMarketingEvents',
      { mode: 'execute', request_body: '{"inputs": [' },
      /not valid JSON/,
    ],
    [
      'schema-violating body',
      'DeleteMarketingEvents',
      executeArgs({ inputs: [{ externalEventId: 'e' }] }),
      /request_body\.inputs\[0\]\.objectId is required/,
    ],
    [
      'custom property without a value',
      'CreateMarketingEvent',
      executeArgs({ ...event, customProperties: [{ name: 'webinar_room' }] }),
      /request_body\.customProperties\[0\]\.value is required/,
    ],
    [
      'schema-violating attendance body',
      'RecordMarketingEventAttendance',
      executeArgs(
        { inputs: [{ vid: 'x', interactionDateTime: 1, properties: {} }] },
        {
          external_event_id: 'e',
          new_subscriber_state: 'attend',
        },
      ),
      /request_body\.inputs\[0\]\.vid/,
    ],
    [
      'completion without a date-time',
      'MarkMarketingEventCompleted',
      {
        event_end_datetime: '2025-03-01',
        event_start_date_time: '2025-03-01T10:00:00Z',
        external_account_id: 'a',
        marketing_event_id: 'e',
      },
      /'event_end_datetime' must be a valid date-time/,
    ],
    [
      'missing required external account',
      'CancelMarketingEvent',
      { external_event_id: 'e' },
      /'external_account_id' is required/,
    ],
    ['empty id', 'FetchEventDetails', { marketing_event_object_id: '' }, /'marketing_event_object_id'/],
    ['empty search text', 'FindCrmMarketingEvents', { external_event_id: '' }, /'external_event_id'/],
  ]);
});
