import { catalogSuite, type RequestCase, responseOf } from '@toolhost/testing';
import { describe, expect, it } from 'vitest';
import * as schemas from '../src/schemas/events.generated.js';
import { suiteOptions } from './suite-options.js';

const definition = {
  label: 'Visit',
  includeDefaultProperties: true,
  propertyDefinitions: [{ label: 'Page', type: 'string' }],
};
const cases: RequestCase[] = [
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
];

const modeSchemas: Record<string, unknown> = {
  CreateCustomEventDefinition: schemas.createEventDefinitionBody,
  CreateEventProperty: schemas.createEventPropertyBody,
  UpdateEventProperty: schemas.updateEventPropertyBody,
};

const api = catalogSuite(suiteOptions);
const { call } = api;

describe('CrmEventsApi custom event definitions and properties', () => {
  api.itSendsRequests(cases);

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

describe('CrmEventsApi event definitions: bad input never reaches HubSpot', () => {
  api.itRejectsBadInput([
    ['a missing required parameter', 'FetchEventDefinitionByName', {}, /Parameter 'event_name' is required/],
    [
      'a missing (x) parameter in execute',
      'CreateEventProperty',
      { mode: 'execute', request_body: '{"label":"a","type":"string"}' },
      /'custom_event_internal_name' is required when mode is execute/,
    ],
    [
      'a bad enum value',
      'RetrieveCustomEventDefinitions',
      { sort_order: 'UP' },
      /'sort_order' must be one of: "ASC", "DESC"/,
    ],
    [
      'a dot segment as a path value',
      'DeleteCustomEventDefinition',
      { event_name: '..' },
      /must be a non-empty identifier/,
    ],
  ]);
});
