import { describe, expect, it } from 'vitest';
import * as core from './index.js';

// The public surface is deliberate: anything added here is a promise to plugin authors.
describe('@toolhost/core entry', () => {
  it('exports exactly the public API', () => {
    expect(Object.keys(core).sort()).toEqual([
      'AUTH_PROVIDER',
      'AxiosHttpSender',
      'CONTRACT_VERSION',
      'HTTP_SENDER',
      'MODE_PARAM',
      'MapSecretSource',
      'Pacer',
      'REQUEST_BODY_PARAM',
      'RegisteredTool',
      'SECRET_SOURCE',
      'StaticTokenAuthProvider',
      'TOOL_MODES',
      'TOOL_SET',
      'ToolEngine',
      'ToolError',
      'ToolRegistry',
      'WHOLE_BODY',
      'behaviorHints',
      'buildInputSchema',
      'buildRequest',
      'checkContractVersion',
      'checkDeclarations',
      'defineToolSetPlugin',
      'encodeQuery',
      'errorForResponse',
      'isModeTool',
      'parseRequestBody',
      'qualifiedName',
      'queryPairs',
      'retryAfterSeconds',
      'validateArguments',
    ]);
  });
});
