import type { ToolDeclaration } from '@toolhost/core';
import {
  createEventDefinitionBody,
  createEventPropertyBody,
  updateEventPropertyBody,
} from '../schemas/events.generated.js';
import { definitionsAuth as auth } from './auth.js';
import { eventNameParam, nonEmpty } from './params.js';

const definitionPath = '/events/v3/event-definitions/{eventName}';

export const eventDefinitionTools: ToolDeclaration[] = [
  {
    name: 'RetrieveCustomEventDefinitions',
    description:
      'HubSpot: list all custom behavioral event definitions, filtered by name, optionally with their properties.',
    method: 'GET',
    path: '/events/v3/event-definitions',
    auth,
    params: [
      {
        name: 'event_name_search_string',
        in: 'query',
        apiName: 'searchString',
        schema: { type: 'string' },
        description: 'Plain substring match on the name (no fuzzy matching).',
      },
      {
        name: 'include_event_properties',
        in: 'query',
        apiName: 'includeProperties',
        schema: { type: 'boolean' },
        description: 'true includes every property of each definition.',
      },
      {
        name: 'paging_cursor_token',
        in: 'query',
        apiName: 'after',
        schema: { type: 'string' },
        description: 'Cursor of the next page.',
      },
      {
        name: 'results_per_page_limit',
        in: 'query',
        apiName: 'limit',
        schema: { type: 'integer', minimum: 1 },
        description: 'Page size.',
      },
      {
        name: 'sort_order',
        in: 'query',
        apiName: 'sortOrder',
        schema: { type: 'string', enum: ['ASC', 'DESC'] },
        description: 'Sort order.',
      },
    ],
  },
  {
    name: 'CreateCustomEventDefinition',
    description: 'HubSpot: define a new custom behavioral event, with its properties.',
    method: 'POST',
    path: '/events/v3/event-definitions',
    auth,
    body: { kind: 'mode', schema: createEventDefinitionBody },
  },
  {
    name: 'FetchEventDefinitionByName',
    description: 'HubSpot: get one custom event definition by its internal name.',
    method: 'GET',
    path: definitionPath,
    auth,
    params: [eventNameParam],
  },
  {
    name: 'DeleteCustomEventDefinition',
    description: 'HubSpot: delete a custom event definition by its internal name.',
    method: 'DELETE',
    path: definitionPath,
    auth,
    params: [eventNameParam],
  },
  {
    name: 'UpdateCustomEventDefinition',
    // HubSpot's PATCH body also knows propertyOrder and templates; the tool sets only what
    // the spec lists, and leaving propertyOrder out keeps the existing property order.
    description:
      "HubSpot: change a custom event definition's label and/or description (other fields stay as they are).",
    method: 'PATCH',
    path: definitionPath,
    auth,
    body: { kind: 'fields' },
    params: [
      {
        name: 'internal_event_name',
        in: 'path',
        apiName: 'eventName',
        required: true,
        schema: nonEmpty,
        description: 'Internal name.',
      },
      {
        name: 'event_description',
        in: 'body',
        bodyPath: 'description',
        schema: { type: 'string' },
        description: 'Help text shown in the UI.',
      },
      {
        name: 'event_label',
        in: 'body',
        bodyPath: 'label',
        schema: { type: 'string' },
        description: 'Human-readable label.',
      },
    ],
  },
  {
    name: 'CreateEventProperty',
    description: 'HubSpot: add a property to a custom behavioral event definition.',
    method: 'POST',
    path: `${definitionPath}/property`,
    auth,
    body: { kind: 'mode', schema: createEventPropertyBody },
    params: [
      {
        name: 'custom_event_internal_name',
        in: 'path',
        apiName: 'eventName',
        executeOnly: 'required',
        schema: nonEmpty,
        description: 'Internal event name.',
      },
    ],
  },
  {
    name: 'DeleteCustomEventProperty',
    description: 'HubSpot: delete a property of a custom event definition.',
    method: 'DELETE',
    path: `${definitionPath}/property/{propertyName}`,
    auth,
    params: [
      {
        name: 'custom_event_internal_name',
        in: 'path',
        apiName: 'eventName',
        required: true,
        schema: nonEmpty,
        description: 'Internal event name.',
      },
      {
        name: 'property_internal_name',
        in: 'path',
        apiName: 'propertyName',
        required: true,
        schema: nonEmpty,
        description: 'Internal property name.',
      },
    ],
  },
  {
    name: 'UpdateEventProperty',
    description: 'HubSpot: update a property of a custom event definition (label, description, options).',
    method: 'PATCH',
    path: `${definitionPath}/property/{propertyName}`,
    auth,
    body: { kind: 'mode', schema: updateEventPropertyBody },
    params: [
      {
        name: 'custom_event_name',
        in: 'path',
        apiName: 'eventName',
        executeOnly: 'required',
        schema: nonEmpty,
        description: 'Internal event name.',
      },
      {
        name: 'property_name_to_update',
        in: 'path',
        apiName: 'propertyName',
        executeOnly: 'required',
        schema: nonEmpty,
        description: 'Internal property name.',
      },
    ],
  },
];
