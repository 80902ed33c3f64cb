import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { createHost, type Host } from '../src/host.js';
import { fixtureApp } from './support.js';

// MCP refuses params nested over 100 levels, but a request body given as JSON text is one
// string there, and an embedder's arguments are JavaScript values (a cycle among them): both
// reached the request's serialization, whose recursion overflowed, answering internal_error.

let upstream: RecordingUpstream;
let host: Host;
beforeAll(async () => {
  upstream = await startRecordingUpstream(() => ({ status: 201, body: { id: 'n1' } }));
  host = await createHost(
    { plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } },
    { configDir: fixtureApp, env: { ECHO_KEY: 'key-0123456789' } },
  );
});
afterAll(async () => {
  await host.close();
  await upstream.close();
});

const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const create = (body: unknown) =>
  host.callTool('EchoApi.CreateItem', { mode: 'execute', request_body: body });

describe('values nested too deep', () => {
  it('refuses a request body nested thousands of levels deep, as text or given, naming it', async () => {
    const cycle: Record<string, unknown> = { name: 'loop' };
    cycle.self = cycle;
    for (const body of [`{"name":"x","extra":${nested(5000)}}`, cycle]) {
      expect(await create(body)).toMatchObject({
        ok: false,
        error: {
          code: 'invalid_argument',
          parameter: 'request_body',
          message: expect.stringMatching(/^Parameter 'request_body' nests more than 100 levels deep/),
        },
      });
    }
    expect(upstream.requests).toEqual([]);
    expect(await create(`{"name":"x","extra":${nested(50)}}`)).toMatchObject({ ok: true, status: 201 });
    expect(upstream.requests).toHaveLength(1);
  });
});
