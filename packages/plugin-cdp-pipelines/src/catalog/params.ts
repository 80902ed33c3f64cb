import { type BodyLimits, headerParam, type JsonSchema, type ParamDeclaration } from '@toolhost/core';

// Customer.io answers 200 and silently drops a call over 32 KB, or a batch over 500 KB (or
// with a call over 32 KB inside it), so those are refused before sending.
const KB = 1024;
export const callLimits: BodyLimits = { maxBytes: 32 * KB };
export const batchLimits: BodyLimits = {
  maxBytes: 500 * KB,
  perItem: { property: 'batch', maxBytes: 32 * KB },
};

/**
 * The API knows only `X-Strict-Mode: 1`. The spec names, per tool, the parameter value that
 * enables strict mode (`True` for some tools, `1` for others); that value is sent as `1`, and
 * any other value leaves the header out (permissive mode).
 */
export function strict(
  name: 'enable_strict_validation' | 'enable_strict_mode',
  enabling: 'True' | '1',
): ParamDeclaration {
  return headerParam(
    name,
    `"${enabling}": strict mode (invalid payloads get 400/401, not dropped).`,
    { type: 'string' },
    { apiName: 'X-Strict-Mode', executeOnly: 'optional', apiValues: { [enabling]: '1' } },
  );
}

/** Customer.io Data Pipelines base URL per account region. */
export const REGION_BASE_URLS = {
  us: 'https://cdp.customer.io/v1',
  eu: 'https://cdp-eu.customer.io/v1',
} as const;

export type Region = keyof typeof REGION_BASE_URLS;

/** `toolSets.CdpPipelinesApi.settings`: the account's region. */
export const cdpSettingsSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { region: { type: 'string', enum: Object.keys(REGION_BASE_URLS) } },
};
