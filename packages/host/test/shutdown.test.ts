import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { createHost } from '../src/host.js';
import { capturedLogger, fixtureApp } from './support.js';

let upstream: RecordingUpstream;
beforeAll(async () => {
  upstream = await startRecordingUpstream(() => ({ status: 200, body: { done: true }, delayMs: 300 }));
});
afterAll(() => upstream.close());

const open = () =>
  createHost(
    { plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } },
    { configDir: fixtureApp, env: { ECHO_AUTH_TOKEN: 'static-token-x' } },
  );

describe('graceful shutdown', () => {
  it('lets in-flight calls finish within the grace period and refuses new ones', async () => {
    const host = await open();
    const inFlight = host.callTool('EchoApi.GetItem', { item_id: 'a' });
    await new Promise((r) => setTimeout(r, 50));
    const closing = host.close(5000);
    expect(await host.callTool('EchoApi.GetItem', { item_id: 'b' })).toMatchObject({
      ok: false,
      error: { code: 'cancelled', message: 'The host is shutting down.' },
    });
    expect(await inFlight).toEqual({ ok: true, kind: 'response', status: 200, body: { done: true } });
    await closing;
    // A preview is stored: once closed, the records were flushed and their file given up.
    expect(await host.previewToolCall('EchoApi.DeleteItem', { item_id: 'c' })).toMatchObject({
      ok: false,
      error: { code: 'cancelled', message: 'The host is shutting down.' },
    });
  });

  it('cancels calls still running at the deadline', async () => {
    const host = await open();
    const inFlight = host.callTool('EchoApi.GetItem', { item_id: 'a' });
    await new Promise((r) => setTimeout(r, 50));
    await host.close(20);
    expect(await inFlight).toMatchObject({ ok: false, error: { code: 'cancelled' } });
  });

  it('has written the log line of each call once close has resolved', async () => {
    const log = capturedLogger('info');
    const host = await createHost(
      { plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } },
      {
        configDir: fixtureApp,
        env: { ECHO_AUTH_TOKEN: 'static-token-x' },
        logger: log.logger,
      },
    );
    await host.callTool('EchoApi.GetItem', { item_id: 'last' });
    // An embedder may exit the process as soon as close resolves.
    await host.close();
    expect(log.lines()).toMatch(/"tool":"EchoApi.GetItem".*"msg":"tool call"/);
  });
});
