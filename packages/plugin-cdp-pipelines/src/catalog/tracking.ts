import type { BodyLimits, JsonSchema, ParamDeclaration, ToolDeclaration } from '@toolhost/core';
import {
  aliasBody,
  batchBody,
  groupBody,
  identifyBody,
  pageBody,
  screenBody,
  trackBody,
} from '../request-schemas.generated.js';

const toolSet = 'CdpPipelinesApi';
const auth = { kind: 'secret', secret: 'CDP_API_KEY', scheme: 'basic-username' } as const;

// Customer.io answers 200 and silently drops a call over 32 KB, or a batch over 500 KB (or
// with a call over 32 KB inside it), so those are refused before sending.
const KB = 1024;
const callLimits: BodyLimits = { maxBytes: 32 * KB };
const batchLimits: BodyLimits = { maxBytes: 500 * KB, perItem: { property: 'batch', maxBytes: 32 * KB } };

/**
 * The API knows only `X-Strict-Mode: 1`. The spec names, per tool, the parameter value that
 * enables strict mode (`True` for some tools, `1` for others); that value is sent as `1`, and
 * any other value leaves the header out (permissive mode).
 */
function strict(
  name: 'enable_strict_validation' | 'enable_strict_mode',
  enabling: 'True' | '1',
): ParamDeclaration {
  return {
    name,
    in: 'header',
    as: 'X-Strict-Mode',
    mode: 'xo',
    values: { [enabling]: '1' },
    schema: { type: 'string' },
    description: `"${enabling}": strict mode (invalid payloads get 400/401, not dropped).`,
  };
}

function tool(
  name: string,
  path: string,
  description: string,
  schema: JsonSchema,
  strictParam: ParamDeclaration,
  limits: BodyLimits = callLimits,
): ToolDeclaration {
  return {
    toolSet,
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
