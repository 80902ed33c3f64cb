import { catalogSuite } from '@toolhost/testing';
import { describe, expect } from 'vitest';
import { suiteOptions } from './suite-options.js';

const api = catalogSuite(suiteOptions);

const ALL_TOOLS = [
  'RetrieveEventCompletions',
  'ListEventTypes',
  'RetrieveCustomEventDefinitions',
  'CreateCustomEventDefinition',
  'FetchEventDefinitionByName',
  'DeleteCustomEventDefinition',
  'UpdateCustomEventDefinition',
  'CreateEventProperty',
  'DeleteCustomEventProperty',
  'UpdateEventProperty',
  'SendBatchEvents',
  'SendEventData',
];

describe('CrmEventsApi listing', () => {
  api.itListsTools(
    'lists the 12 tools with their schemas and hints',
    {
      exactly: ALL_TOOLS,
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
});
