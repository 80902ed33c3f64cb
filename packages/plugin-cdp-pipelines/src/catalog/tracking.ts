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
    'Customer.io: identify a person (userId and/or anonymousId) and set their profile traits, creating or updating them (attributes such as email, name, plan).',
    identifyBody,
    strict('enable_strict_validation', 'True'),
  ),
  tool(
    'TrackUserEvent',
    '/track',
    'Customer.io: track (send) an event a person or anonymous visitor did, e.g. Order Completed, with its properties.',
    trackBody,
    strict('enable_strict_validation', 'True'),
  ),
  tool(
    'SendPageViewEvent',
    '/page',
    'Customer.io: record (track) a website page view, a visit to a page by a person or anonymous visitor.',
    pageBody,
    strict('enable_strict_mode', '1'),
  ),
  tool(
    'SendScreenViewEvent',
    '/screen',
    'Customer.io: record (track) a mobile app screen view of a person.',
    screenBody,
    strict('enable_strict_validation', '1'),
  ),
  tool(
    'AddToGroup',
    '/group',
    "Customer.io: add a person (user) to a group such as a company, account or organization, and set the group's traits.",
    groupBody,
    strict('enable_strict_validation', '1'),
  ),
  tool(
    'AliasUserIdentity',
    '/alias',
    "Customer.io: alias (merge) an anonymous visitor's or previous id into an identified userId, e.g. after signup or login.",
    aliasBody,
    strict('enable_strict_validation', 'True'),
  ),
  tool(
    'SendBatchRequests',
    '/batch',
    'Customer.io: send many identify, track, page, screen, group and alias calls in one batch (body {batch:[...]}).',
    batchBody,
    strict('enable_strict_mode', 'True'),
    batchLimits,
  ),
];
