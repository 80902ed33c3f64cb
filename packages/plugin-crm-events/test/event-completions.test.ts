import { catalogSuite, type RequestCase } from '@toolhost/testing';
import { describe, expect, it } from 'vitest';
import * as schemas from '../src/schemas/events.generated.js';
import { suiteOptions } from './suite-options.js';

const event = {
  eventName: 'pe1234_visit',
  email: 'a@b.com',
  properties: { page: '/home' },
  occurredAt: '2024-01-02T03:04:05Z',
};

const cases: RequestCase[] = [
  {
    tool: 'RetrieveEventCompletions',
    args: {
      crm_object_id: 123,
      crm_object_type: 'contact',
      event_instance_ids: ['i1', 'i2'],
      event_property_filter: { hs_url: 'https://x.com/a b' },
      event_type_name: 'e_visited_page',
      filter_events_occurred_before: '2024-02-01T00:00:00Z',
      filter_occurred_after_datetime: '2024-01-01T00:00:00Z',
      max_results_per_page: 10,
      paging_before_token: 'b1',
      paging_cursor_token: 'a1',
      sort_direction: ['DESCENDING'],
      unique_identifier_property: { email: 'a@b.com' },
    },
    method: 'GET',
    path: '/events/v3/events',
    query: [
      ['objectId', '123'],
      ['objectType', 'contact'],
      ['id', 'i1'],
      ['id', 'i2'],
      ['property.hs_url', 'https://x.com/a b'],
      ['eventType', 'e_visited_page'],
      ['occurredBefore', '2024-02-01T00:00:00Z'],
      ['occurredAfter', '2024-01-01T00:00:00Z'],
      ['limit', '10'],
      ['before', 'b1'],
      ['after', 'a1'],
      ['sort', 'DESCENDING'],
      ['objectProperty.email', 'a@b.com'],
    ],
  },
  { tool: 'ListEventTypes', args: {}, method: 'GET', path: '/events/v3/events/event-types', query: [] },
  {
    tool: 'SendBatchEvents',
    args: {
      mode: 'execute',
      request_body: JSON.stringify({ inputs: [event, { ...event, email: 'c@d.com' }] }),
    },
    method: 'POST',
    path: '/events/v3/send/batch',
    body: { inputs: [event, { ...event, email: 'c@d.com' }] },
  },
  {
    tool: 'SendEventData',
    args: { mode: 'execute', request_body: JSON.stringify(event) },
    method: 'POST',
    path: '/events/v3/send',
    body: event,
  },
];

const modeSchemas: Record<string, unknown> = {
  SendBatchEvents: schemas.sendBatchEventsBody,
  SendEventData: schemas.sendEventBody,
};

const api = catalogSuite(suiteOptions);
const { call } = api;

describe('CrmEventsApi event completions and sending', () => {
  api.itSendsRequests(cases);

  it('encodes spaces in query values as %20', async () => {
    await call('RetrieveEventCompletions', { event_property_filter: { hs_page_title: 'Home page' } });
    expect(api.upstream.requests[0]!.rawQuery).toBe('property.hs_page_title=Home%20page');
  });

  api.itReturnsRequestSchemas(modeSchemas);
});

describe('CrmEventsApi event completions: bad input never reaches HubSpot', () => {
  api.itRejectsBadInput([
    [
      'invalid JSON in request_body',
      'SendEventData',
      { mode: 'execute', request_body: '{"eventName":' },
      /request_body' is not valid JSON/,
    ],
    [
      'a body that violates the schema',
      'SendBatchEvents',
      { mode: 'execute', request_body: JSON.stringify({ inputs: [{ eventName: 'x' }] }) },
      /request_body\.inputs\[0\]\.properties is required/,
    ],
    [
      'a missing request_body in execute',
      'SendEventData',
      { mode: 'execute' },
      /'request_body' is required when mode is execute/,
    ],
    [
      'a mistyped parameter',
      'RetrieveEventCompletions',
      { crm_object_id: 'abc', crm_object_type: 'contact' },
      /'crm_object_id' must be of type integer/,
    ],
    ['an unknown parameter', 'ListEventTypes', { verbose: true }, /Unknown parameter 'verbose'/],
    [
      'a bad date-time',
      'RetrieveEventCompletions',
      { filter_occurred_after_datetime: 'yesterday' },
      /must be a valid date-time/,
    ],
    [
      'an object id without its type',
      'RetrieveEventCompletions',
      { crm_object_id: 1 },
      /'crm_object_type' is required when 'crm_object_id' is given/,
    ],
    ['a mode outside the enum', 'SendEventData', { mode: 'run' }, /'mode' must be one of/],
  ]);
});
