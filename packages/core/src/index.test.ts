import * as contract from '@toolhost/core';
import { describe, expect, it } from 'vitest';

// The public surface is deliberate: anything added here is a promise to plugin authors.
describe('@toolhost/core (the contract)', () => {
  it('exports exactly the contract', () => {
    expect(Object.keys(contract).sort()).toEqual([
      'CONTRACT_VERSION',
      'MODE_PARAM',
      'PARAM_VOCABULARY',
      'REQUEST_BODY_PARAM',
      'TOOL_MODES',
      'TOOL_SET_TOKEN',
      'TOOL_SET_VOCABULARY',
      'TOOL_VOCABULARY',
      'ToolError',
      'behaviorHints',
      'bodyParam',
      'buildInputSchema',
      'checkContractVersion',
      'defineToolSetPlugin',
      'describeTool',
      'headerParam',
      'isModeTool',
      'parameterRules',
      'pathParam',
      'providerAuth',
      'qualifiedName',
      'queryParam',
      'registerToolSet',
      'replacesStored',
      'sameGrant',
      'secretAuth',
      'serviceToken',
    ]);
  });
});

describe('the contract entry loads nothing else', () => {
  it('imports no module outside the contract, so plugins pull no engine dependency', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const dir = new URL('.', import.meta.url);
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
      const source = readFileSync(new URL(file, dir), 'utf8');
      const specifiers = [...source.matchAll(/^import (?!type )[^;]*? from '([^']+)'/gm)].map((m) => m[1]);
      for (const s of specifiers) expect(s, `${file} imports ${s}`).toMatch(/^\.\//);
    }
  });
});
