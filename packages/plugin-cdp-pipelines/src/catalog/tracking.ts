import type { BodyLimits, JsonSchema, ParamDeclaration, ToolDeclaration } from '@toolhost/core';
import {
  aliasBody,
  batchBody,
  groupBody,
  identifyBody,
  pageBody,
  screenBody,
  trackBody,
} from '../schemas/tracking.generated.js';
import { cdpAuth as auth } from './auth.js';
import { batchLimits, callLimits, strict } from './params.js';

function tool(
  name: string,
  path: string,
  description: string,
  schema: JsonSchema,
  strictParam: ParamDeclaration,
  limits: BodyLimits = callLimits,
): ToolDeclaration {
  return {
    name,
    description,
    method: 'POST',
    path,
    auth,
    body: { kind: 'mode', schema, limits },
    params: [strictParam],
  };
}

export const trackingTools: ToolDeclaration[] = [
  tool(
    'IdentifyPersonAndAssignTraits',
    '/identify',
    'Identify a person (userId and/or anonymousId) and set their traits.',
    identifyBody,
    strict('enable_strict_validation', 'True'),
  ),
  tool(
    'TrackUserEvent',
    '/track',
    'Record an event with properties for a person.',
    trackBody,
    strict('enable_strict_validation', 'True'),
  ),
  tool(
    'SendPageViewEvent',
    '/page',
    'Record a page view for a person.',
    pageBody,
    strict('enable_strict_mode', '1'),
  ),
  tool(
    'SendScreenViewEvent',
    '/screen',
    'Record a mobile screen view for a person.',
    screenBody,
    strict('enable_strict_validation', '1'),
  ),
  tool(
    'AddToGroup',
    '/group',
    'Add a person to a group, with group traits.',
    groupBody,
    strict('enable_strict_validation', '1'),
  ),
  tool(
    'AliasUserIdentity',
    '/alias',
    'Link a previous (anonymous) id to an identified userId.',
    aliasBody,
    strict('enable_strict_validation', 'True'),
  ),
  tool(
    'SendBatchRequests',
    '/batch',
    'Send several identify/track/page/screen/group/alias calls in one request (body: {batch:[...]}).',
    batchBody,
    strict('enable_strict_mode', 'True'),
    batchLimits,
  ),
];
