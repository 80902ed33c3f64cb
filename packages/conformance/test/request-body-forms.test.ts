import {
  type RecordingUpstream,
  type SpawnedHost,
  spawnHost,
  startRecordingUpstream,
} from '@toolhost/testing';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';

// Models send a mode tool's request_body as the JSON itself about as often as its text; both
// are one body, sent and refused alike, in one round trip.
let upstream: RecordingUpstream;
let host: SpawnedHost;
const body = { type: 'track', userId: 'u1', event: 'Signed Up', properties: { plan: 'pro' } };

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  host = await spawnHost(
    {
      plugins: ['@toolhost/plugin-cdp-pipelines'],
      toolSets: { CdpPipelinesApi: { baseUrl: upstream.url } },
    },
    { env: { CDP_API_KEY: 'cdp-source-key' } },
  );
});
afterAll(async () => {
  await host?.close();
  await upstream?.close();
});
beforeEach(() => upstream.reset());

const track = (request_body: unknown) =>
  host.client.callTool({
    name: 'CdpPipelinesApi_TrackUserEvent',
    arguments: { mode: 'execute', request_body },
  });

it('sends a request_body given as an object exactly as the same body given as text', async () => {
  expect((await track(JSON.stringify(body))).isError).toBeFalsy();
  expect((await track(body)).isError).toBeFalsy();
  expect(upstream.requests).toHaveLength(2);
  const [asText, asObject] = upstream.requests;
  expect(asObject!.body).toEqual(body);
  expect(asObject!.body).toEqual(asText!.body);
  expect(asObject!.path).toBe(asText!.path);
});

it('refuses an object of the wrong shape with the error its text gets, sending nothing', async () => {
  const wrong = { type: 'track', userId: 'u1' };
  const [fromText, fromObject] = [await track(JSON.stringify(wrong)), await track(wrong)];
  expect(fromObject.isError).toBe(true);
  expect(fromObject.structuredContent).toEqual(fromText.structuredContent);
  expect(upstream.requests).toHaveLength(0);
});
