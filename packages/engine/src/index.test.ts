import * as engine from '@toolhost/engine';
import * as internal from '@toolhost/engine/internal';
import { describe, expect, it } from 'vitest';

// The built entries, as hosts import them: anything added here is a promise to host authors
// (the main entry) or explicitly none (internal).
describe('@toolhost/engine entries', () => {
  it('exports exactly the engine API', () => {
    expect(Object.keys(engine).sort()).toEqual([
      'ENGINE_DEFAULTS',
      'MapSecretSource',
      'RegisteredTool',
      'StaticTokenAuthProvider',
      'ToolEngine',
      'ToolRegistry',
      'UndiciHttpSender',
      'checkAgainstSchema',
      'checkToolSet',
      'describeDeclarationProblems',
      'parseAnswerJson',
    ]);
  });

  it('exports from ./internal only what other packages use of its building blocks', () => {
    expect(Object.keys(internal).sort()).toEqual([
      'Pacer',
      'closest',
      'credentialProblem',
      'declaredCredentials',
      'didYouMean',
      'escapeLines',
      'escapeUnseen',
      'isObject',
      'nestsDeeperThan',
      'parseProblem',
      'plainArguments',
      'pointerKeys',
      'quoted',
      'sampleValue',
      'shortened',
      'sleep',
      'valueAt',
    ]);
  });
});
