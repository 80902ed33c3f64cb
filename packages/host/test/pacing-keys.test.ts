import { Pacer } from '@toolhost/engine/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { createHost, type Host } from '../src/host.js';
import { fixtureApp, inlinePlugin, readTool } from './support.js';

// Paced per base, as Airtable's tool set is: the pacing key is the caller's base_id.
const records = inlinePlugin(
  'Sheets',
  [
    {
      ...readTool('ListRows'),
      path: '/{baseId}/rows',
      params: [
        {
          name: 'base_id',
          apiName: 'baseId',
          in: 'path',
          required: true,
          schema: { type: 'string' },
          description: 'Base id.',
        },
      ],
    },
  ],
  { pacing: { key: 'baseId', requestsPerSecond: 1000 } },
);

let upstream: RecordingUpstream;
let host: Host;
beforeAll(async () => {
  upstream = await startRecordingUpstream();
  host = await createHost(
    { toolSets: { Sheets: { baseUrl: upstream.url } } },
    { configDir: fixtureApp, plugins: [records], env: {} },
  );
});
afterAll(async () => {
  await host?.close();
  await upstream?.close();
});

/** The characters of the keys a pacer holds. */
function heldChars(pacer: Pacer): number {
  const { next, departures } = pacer as unknown as {
    next: Map<string, unknown>;
    departures: Map<string, unknown>;
  };
  let chars = 0;
  for (const key of [...next.keys(), ...departures.keys()]) chars += key.length;
  return chars;
}

describe('pacing keys the caller chooses', () => {
  it('holds a digest of a long one, not the value (a pacer keeps its last thousand keys)', async () => {
    const pacers = new Set<Pacer>();
    const wait = Pacer.prototype.wait;
    Pacer.prototype.wait = function (this: Pacer, ...args) {
      pacers.add(this);
      return wait.apply(this, args);
    };
    try {
      for (let i = 0; i < 20; i += 1) {
        const outcome = await host.callTool('Sheets.ListRows', { base_id: `app${i}${'x'.repeat(10_000)}` });
        expect(outcome.ok).toBe(true);
        upstream.reset();
      }
      // A short id is its own key: requests to one base still share one.
      await host.callTool('Sheets.ListRows', { base_id: 'appShort' });
      await host.callTool('Sheets.ListRows', { base_id: 'appShort' });
    } finally {
      Pacer.prototype.wait = wait;
    }
    expect(pacers.size).toBe(1);
    const [pacer] = [...pacers];
    // 21 keys, each at most the digest's length: without it, 200,000 characters.
    expect(heldChars(pacer!)).toBeLessThan(21 * 100);
    expect((pacer as unknown as { next: Map<string, unknown> }).next.has('appShort')).toBe(true);
  });
});
