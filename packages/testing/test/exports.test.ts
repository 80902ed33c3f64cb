import * as testing from '@toolhost/testing';
import { describe, expect, it } from 'vitest';

describe('@toolhost/testing entry', () => {
  it('exports exactly the public API', () => {
    expect(Object.keys(testing).sort()).toEqual([
      'catalogSuite',
      'effectiveHints',
      'executeArgs',
      'hostCliPath',
      'responseOf',
      'resultText',
      'spawnHost',
      'startRecordingUpstream',
    ]);
  });
});
