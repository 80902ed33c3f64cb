import type { JsonSchema, ParamDeclaration } from '@toolhost/core';

/** Parameters shared across the catalog: marketing-event ids, participation filters, paging. */
export const eventsBase = '/marketing/v3/marketing-events';
// Path ids need no minLength: the engine refuses an empty (or dot-segment) path value itself.
export const idSchema = { type: 'string' } as const;

/** The `{subscriberState}` path segment HubSpot accepts when recording participation. */
export const subscriberStateSchema: JsonSchema = { type: 'string', enum: ['register', 'attend', 'cancel'] };

/** The participation `state` filter values of the breakdown endpoints. */
const participationStateSchema: JsonSchema = {
  type: 'string',
  enum: ['REGISTERED', 'CANCELLED', 'ATTENDED', 'NO_SHOW'],
};

/** The participation breakdown page size: spec default 10 (the API's too), at most 100. */
const responseSizeLimit: ParamDeclaration = {
  name: 'response_size_limit',
  in: 'query',
  apiName: 'limit',
  schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
  description: 'Page size.',
};

/** The query filters and paging of a participation breakdown, under the spec's names of one tool. */
export function breakdownQuery(names: { cursor: string; state: string }): ParamDeclaration[] {
  return [
    {
      name: names.cursor,
      in: 'query',
      apiName: 'after',
      schema: { type: 'string' },
      description: 'paging.next.after.',
    },
    {
      name: names.state,
      in: 'query',
      apiName: 'state',
      schema: participationStateSchema,
      description: '',
    },
    responseSizeLimit,
  ];
}
