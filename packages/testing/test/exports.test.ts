import * as testing from '@toolhost/testing';
import { describe, expect, it } from 'vitest';

describe('@toolhost/testing entry', () => {
  it('exports exactly the public API', () => {
    expect(Object.keys(testing).sort()).toEqual([
      'HOST_WRITE_TOOLS',
      'catalogSuite',
      'effectiveHints',
      'executeArgs',
      'heldAnswers',
      'hostCliPath',
      'pluginToolsOf',
      'responseOf',
      'resultText',
      'spawnHost',
      'startRecordingUpstream',
    ]);
  });
});
