import { describe, expect, it } from 'vitest';
import * as contract from './index.js';

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
      'bodyParam',
      'checkContractVersion',
      'defineToolSetPlugin',
      'headerParam',
      'isModeTool',
      'pathParam',
      'providerAuth',
      'qualifiedName',
      'queryParam',
      'registerToolSet',
      'secretAuth',
      'serviceToken',
    ]);
  });
});
