import { resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { createHost, type Host } from '../src/host.js';
import { capturedLogger, fixtureApp } from './support.js';

// A README's stand-in left where the token goes ("<your token>", "changeme"): `doctor` says so,
// and a call says so too, rather than send it and hand back the vendor's 401.

const { logger, lines } = capturedLogger();
let upstream: RecordingUpstream;
let host: Host;
beforeAll(async () => {
  upstream = await startRecordingUpstream(() => ({
    status: 401,
    body: { error: 'AUTHENTICATION_REQUIRED' },
  }));
  host = await createHost(
    {
      toolSets: { GridApi: { baseUrl: upstream.url }, CdpPipelinesApi: { baseUrl: upstream.url } },
      secrets: { CDP_API_KEY: 'changeme' },
    },
    {
      configDir: resolve(fixtureApp, '../../../../..'),
      pluginPackages: ['@toolhost/plugin-grid', '@toolhost/plugin-cdp-pipelines'],
      env: { GRID_AUTH_PROVIDER_TOKEN: '"<Airtable personal access token>"' },
      logger,
    },
  );
});
afterAll(async () => {
  await host?.close();
  await upstream.close();
});
beforeEach(() => upstream.reset());

describe('a call whose credential is a placeholder', () => {
  it('is refused for a static token, naming where it is set, and sends nothing', async () => {
    const outcome = await host.callTool('GridApi.ListGridRecords', {
      base_id: 'appAAAAAAAAAAAAAA',
      table_id_or_name: 'tbl1',
    });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'authorization_required' } });
    const text = JSON.stringify(outcome);
    expect(text).toContain('GRID_AUTH_PROVIDER_TOKEN holds a placeholder, not a real value');
    expect(text + lines()).not.toContain('Airtable personal access token');
    expect(upstream.requests).toHaveLength(0);
  });

  it('is refused for a secret, naming it, and sends nothing', async () => {
    const outcome = await host.callTool('CdpPipelinesApi.IdentifyPersonAndAssignTraits', {
      mode: 'execute',
      request_body: JSON.stringify({ userId: 'u1', traits: { plan: 'pro' } }),
    });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'missing_secret' } });
    const text = JSON.stringify(outcome);
    expect(text).toContain('CDP_API_KEY, which holds a placeholder, not a real value');
    expect(text + lines()).not.toContain('changeme');
    expect(upstream.requests).toHaveLength(0);
  });
});
