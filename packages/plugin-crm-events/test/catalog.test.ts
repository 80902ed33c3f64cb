import { catalogSuite, type RequestCase, responseOf } from '@toolhost/host/testing';
import { describe, expect, it } from 'vitest';
import * as schemas from '../src/schemas/events.generated.js';

const TOKEN = 'hubspot-test-token-8f2c';

const definition = {
  label: 'Visit',
  includeDefaultProperties: true,
  propertyDefinitions: [{ label: 'Page', type: 'string' }],
};
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
    tool: 'RetrieveCustomEventDefinitions',
    args: {
      event_name_search_string: 'visit',
      include_event_properties: true,
      paging_cursor_token: 'c2',
      results_per_page_limit: 5,
      sort_order: 'DESC',
    },
    method: 'GET',
    path: '/events/v3/event-definitions',
    query: [
      ['searchString', 'visit'],
      ['includeProperties', 'true'],
      ['after', 'c2'],
      ['limit', '5'],
      ['sortOrder', 'DESC'],
    ],
  },
  {
    tool: 'CreateCustomEventDefinition',
    args: { mode: 'execute', request_body: JSON.stringify(definition) },
    method: 'POST',
    path: '/events/v3/event-definitions',
    body: definition,
  },
  {
    tool: 'FetchEventDefinitionByName',
    args: { event_name: 'pe1_my event/x?y#z' },
    method: 'GET',
    path: '/events/v3/event-definitions/pe1_my event/x?y#z',
    rawPath: '/events/v3/event-definitions/pe1_my%20event%2Fx%3Fy%23z',
  },
  {
    tool: 'DeleteCustomEventDefinition',
    args: { event_name: 'pe1_visit' },
    method: 'DELETE',
    path: '/events/v3/event-definitions/pe1_visit',
  },
  {
    tool: 'UpdateCustomEventDefinition',
    args: {
      internal_event_name: 'pe1_visit',
      event_label: 'Visit v2',
      event_description: 'Counted per page',
    },
    method: 'PATCH',
    path: '/events/v3/event-definitions/pe1_visit',
    body: { label: 'Visit v2', description: 'Counted per page' },
  },
  {
    tool: 'CreateEventProperty',
    args: {
      mode: 'execute',
      custom_event_internal_name: 'pe1_visit',
      request_body: JSON.stringify({ label: 'Referrer', type: 'string' }),
    },
    method: 'POST',
    path: '/events/v3/event-definitions/pe1_visit/property',
    body: { label: 'Referrer', type: 'string' },
  },
  {
    tool: 'DeleteCustomEventProperty',
    args: { custom_event_internal_name: 'pe1_visit', property_internal_name: 'referrer' },
    method: 'DELETE',
    path: '/events/v3/event-definitions/pe1_visit/property/referrer',
  },
  {
    tool: 'UpdateEventProperty',
    args: {
      mode: 'execute',
      custom_event_name: 'pe1_visit',
      property_name_to_update: 'referrer',
      request_body: JSON.stringify({ label: 'Referring page' }),
    },
    method: 'PATCH',
    path: '/events/v3/event-definitions/pe1_visit/property/referrer',
    body: { label: 'Referring page' },
  },
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
  CreateCustomEventDefinition: schemas.createEventDefinitionBody,
  CreateEventProperty: schemas.createEventPropertyBody,
  UpdateEventProperty: schemas.updateEventPropertyBody,
  SendBatchEvents: schemas.sendBatchEventsBody,
  SendEventData: schemas.sendEventBody,
};

const api = catalogSuite({
  plugin: '@toolhost/plugin-crm-events',
  toolSet: 'CrmEventsApi',
  env: { CRM_AUTH_PROVIDER_TOKEN: TOKEN },
  authorization: `Bearer ${TOKEN}`,
  upstreamName: 'HubSpot',
  response: { status: 200, body: { results: [{ id: 'r1' }] } },
});
const { call } = api;

describe('CrmEventsApi over MCP', () => {
  api.itListsTools(
    'lists the 12 tools with their schemas and hints',
    {
      exactly: cases.map((c) => c.tool),
      required: { SendEventData: ['mode'] },
      propertySchemas: { RetrieveEventCompletions: { crm_object_id: { type: 'integer' } } },
      hints: {
        RetrieveEventCompletions: { readOnlyHint: true },
        DeleteCustomEventDefinition: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      },
      properties: {
        UpdateEventProperty: ['mode', 'request_body', 'custom_event_name', 'property_name_to_update'],
      },
    },
    (listed) => {
      expect(listed.get('SendEventData').inputSchema.properties).toHaveProperty('request_body');
    },
  );

  api.itSendsRequests(cases);

  it('encodes spaces in query values as %20', async () => {
    await call('RetrieveEventCompletions', { event_property_filter: { hs_page_title: 'Home page' } });
    expect(api.upstream.requests[0]!.rawQuery).toBe('property.hs_page_title=Home%20page');
  });

  api.itReturnsRequestSchemas(modeSchemas);

  it('ignores execute-only parameters in get_request_schema', async () => {
    const result = await call('UpdateEventProperty', {
      mode: 'get_request_schema',
      custom_event_name: 42,
      request_body: '{',
    });
    expect(result.isError).toBeFalsy();
    expect(api.upstream.requests).toHaveLength(0);
  });

  it('passes a 204 through as a response without content', async () => {
    api.upstream.respond(() => ({ status: 204 }));
    const result = await call('DeleteCustomEventDefinition', { event_name: 'pe1_visit' });
    expect(result.isError).toBeFalsy();
    expect(await responseOf(api.host.client, result)).toEqual({ status: 204, body: null });
  });
});

describe('CrmEventsApi bad input never reaches HubSpot', () => {
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
    ['a missing required parameter', 'FetchEventDefinitionByName', {}, /Parameter 'event_name' is required/],
    [
      'a missing (x) parameter in execute',
      'CreateEventProperty',
      { mode: 'execute', request_body: '{"label":"a","type":"string"}' },
      /'custom_event_internal_name' is required when mode is execute/,
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
      'a bad enum value',
      'RetrieveCustomEventDefinitions',
      { sort_order: 'UP' },
      /'sort_order' must be one of: "ASC", "DESC"/,
    ],
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
    [
      'a dot segment as a path value',
      'DeleteCustomEventDefinition',
      { event_name: '..' },
      /must be a non-empty identifier/,
    ],
    ['a mode outside the enum', 'SendEventData', { mode: 'run' }, /'mode' must be one of/],
  ]);

  it('an unknown tool is a protocol error naming it', async () => {
    await expect(call('NoSuchTool', {})).rejects.toThrow(/Unknown tool: CrmEventsApi_NoSuchTool/);
    expect(api.upstream.requests).toHaveLength(0);
  });
});

describe('CrmEventsApi upstream failures', () => {
  it('turns an upstream 4xx into a structured error with the upstream body', async () => {
    api.upstream.respond(() => ({
      status: 404,
      body: { status: 'error', message: 'Event definition not found' },
    }));
    const result = await call('FetchEventDefinitionByName', { event_name: 'missing' });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      error: {
        code: 'upstream_error',
        status: 404,
        retryable: false,
        message: 'The upstream answered HTTP 404.',
        upstream: { status: 'error', message: 'Event definition not found' },
      },
    });
  });

  it('marks 5xx retryable and 429 as rate limited with the wait', async () => {
    api.upstream.respond(() => ({ status: 503, body: 'unavailable' }));
    const r1 = await call('ListEventTypes', {});
    expect((r1.structuredContent as { error: { code: string; retryable: boolean } }).error).toMatchObject({
      code: 'upstream_error',
      retryable: true,
    });
    api.upstream.respond(() => ({
      status: 429,
      headers: { 'retry-after': '120' },
      body: { message: 'slow down' },
    }));
    const r2 = await call('ListEventTypes', {});
    expect((r2.structuredContent as { error: unknown }).error).toMatchObject({
      code: 'upstream_rate_limited',
      retryAfterSeconds: 120,
      retryable: true,
    });
  });

  it('never shows the token in results or logs', async () => {
    api.upstream.respond(() => ({ status: 401, body: { message: 'bad token' } }));
    const result = await call('ListEventTypes', {});
    expect(JSON.stringify(result)).not.toContain(TOKEN);
    expect(api.host.stderr()).not.toContain(TOKEN);
  });
});
