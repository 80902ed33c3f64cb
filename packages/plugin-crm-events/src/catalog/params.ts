import { type JsonSchema, type ParamDeclaration, pathParam } from '@toolhost/core';

/** A non-empty string (HubSpot answers 404 for an empty name, which reads as "not found"). */
export const nonEmpty = { type: 'string', minLength: 1 } as const satisfies JsonSchema;

/** One property name and its value, for the `property.<name>=<value>` style filters. */
export const propertyPair = {
  type: 'object',
  minProperties: 1,
  maxProperties: 1,
  additionalProperties: { type: ['string', 'number', 'boolean'] },
} as const satisfies JsonSchema;

/** The event definition's internal name in the path. */
export const eventNameParam: ParamDeclaration = pathParam('event_name', 'eventName', 'Internal name.', {
  schema: nonEmpty,
});
