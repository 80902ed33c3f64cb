import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CONTRACT_VERSION } from './contract-version.js';
import type { ParamDeclaration, ToolDeclaration, ToolSetDefinition } from './tool-declaration.js';
import { PARAM_VOCABULARY, TOOL_SET_VOCABULARY, TOOL_VOCABULARY } from './vocabulary.js';

/**
 * The fingerprint of the declaration vocabulary of each released contract version. Changing
 * the vocabulary (a field, an enum value, a constraint) changes the fingerprint: bump
 * CONTRACT_VERSION (a minor for an optional addition, a major for anything else) and record
 * the new fingerprint under the new version. Never edit a recorded one.
 */
const RECORDED: Record<string, string> = {
  '2.0': '2b7761fc81e436e46646ee527fda74ba8437666bcf7dc957d49d610aa6058385',
  '2.1': 'b57714250c1bc7dffffb0260f63808ae0075c1ffbdbe203a7785fd7aa5203845',
  '2.2': 'b4201377ea89744baf2a8318b34b73ec0226617305241b2cc5870c3cab6610d4',
  '2.3': 'c85b5b7250e62986929a02b826950a91e3d5b9a31560434f9924b75804e1abab',
  '2.4': '89bf3109d025333e7363433063555e976da5ccb5e6963c809777ec3187ace86d',
  '2.5': 'd55b3a7b9b91525a2b9c94b82f871eb5c49a4902a99350b71a4f2b4647579c0c',
  '2.6': '566298f553fc0c5d274a3895c299246dd6172718cf750835fde82eabf8f0c0d0',
};

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const fingerprint = createHash('sha256').update(canonical(TOOL_SET_VOCABULARY)).digest('hex');

// Every key of the TypeScript types, checked by the compiler in both directions (a missing key
// and an unknown one are both errors), so the types and the schema cannot drift apart.
const paramKeys: Record<keyof ParamDeclaration, true> = {
  name: true,
  description: true,
  schema: true,
  required: true,
  in: true,
  apiName: true,
  bodyPath: true,
  wholeBody: true,
  style: true,
  keyPrefix: true,
  executeOnly: true,
  apiValues: true,
  decode: true,
  sendEmptyArray: true,
  sendDefault: true,
  dynamicDefault: true,
  fromSetting: true,
};
const toolKeys: Record<keyof ToolDeclaration, true> = {
  name: true,
  description: true,
  method: true,
  path: true,
  server: true,
  params: true,
  body: true,
  auth: true,
  requiresAnyOf: true,
  dependentRequired: true,
  hints: true,
};
const toolSetKeys: Record<keyof ToolSetDefinition, true> = {
  contractVersion: true,
  toolSet: true,
  vendor: true,
  plugin: true,
  servers: true,
  tools: true,
  traffic: true,
  oauth: true,
  settingValues: true,
  skill: true,
  pastRequests: true,
};

describe('the declaration vocabulary', () => {
  it(`is the one recorded for contract ${CONTRACT_VERSION}`, () => {
    expect(
      fingerprint,
      'The declaration vocabulary changed: give it a new CONTRACT_VERSION and record its fingerprint.',
    ).toBe(RECORDED[CONTRACT_VERSION]);
  });

  it('has a schema property for every field of the TypeScript types, and no other', () => {
    const keys = (o: object) => Object.keys(o).sort();
    expect(keys(PARAM_VOCABULARY.properties)).toEqual(keys(paramKeys));
    expect(keys(TOOL_VOCABULARY.properties)).toEqual(keys(toolKeys));
    expect(keys(TOOL_SET_VOCABULARY.properties)).toEqual(keys(toolSetKeys));
  });
});
