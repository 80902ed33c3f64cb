// biome-ignore-all lint/suspicious/noTemplateCurlyInString: MCP Bundle templates, written literally
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { cli } from './support.js';

let upstream: RecordingUpstream;
beforeAll(async () => {
  upstream = await startRecordingUpstream();
});
beforeEach(() => {
  upstream.reset();
  upstream.respond(() => ({ status: 200, body: { id: 'usr1' } }));
});
afterAll(() => upstream.close());

function configFile(config: object): string {
  const file = join(mkdtempSync(join(tmpdir(), 'toolhost-doctor-')), 'config.json');
  writeFileSync(file, JSON.stringify(config));
  return file;
}

describe('doctor --live', () => {
  it("checks GridApi with Airtable's whoami, through the configured base URL", async () => {
    const file = configFile({
      plugins: ['@toolhost/plugin-grid'],
      toolSets: { GridApi: { baseUrl: upstream.url } },
    });
    const r = await cli(['--config', file, 'doctor', '--live'], { GRID_AUTH_PROVIDER_TOKEN: 'pat-doctor' });
    expect(r.stdout).toContain(
      `live: GridApi.RetrieveUserIdAndScopes (GET ${upstream.url}/meta/whoami) answered HTTP 200`,
    );
    expect(r.code).toBe(0);
    expect(upstream.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /meta/whoami']);
    expect(upstream.requests[0]!.headers.authorization).toBe('Bearer pat-doctor');
    expect(r.stdout).not.toContain('pat-doctor');
  });

  it('says the token was rejected, and where it was set, when the upstream answers 401, and fails', async () => {
    upstream.respond(() => ({ status: 401, body: { error: { type: 'AUTHENTICATION_REQUIRED' } } }));
    const file = configFile({
      plugins: ['@toolhost/plugin-grid'],
      toolSets: { GridApi: { baseUrl: upstream.url } },
    });
    const r = await cli(['--config', file, 'doctor', '--live'], { GRID_AUTH_PROVIDER_TOKEN: 'pat-doctor' });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      'failed: upstream_error: The upstream answered HTTP 401: the upstream rejected the token of auth provider grid-auth-provider set in GRID_AUTH_PROVIDER_TOKEN (wrong, expired or revoked).',
    );
    // The verdict above the details is the live check's, not "ready".
    expect(r.stdout).toMatch(/GridApi \(\d+ tools\): LIVE CHECK FAILED/);
    expect(r.stdout).not.toMatch(/GridApi \(\d+ tools\): ready/);
  });

  it('gives a set the configuration hides no verdict, and names it once', async () => {
    const file = configFile({
      plugins: ['@toolhost/plugin-grid', '@toolhost/plugin-crm-events'],
      toolSets: { GridApi: { baseUrl: upstream.url } },
    });
    const r = await cli(['--config', file, '--tool-sets', 'GridApi', 'doctor'], {
      GRID_AUTH_PROVIDER_TOKEN: 'pat-doctor',
    });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('CrmEventsApi (0 tools)');
    expect(r.stdout).toContain('Not exposed (the configuration hides all their tools): CrmEventsApi');
  });

  it('checks each HubSpot set with a read that needs no argument on the configured base URL', async () => {
    const file = configFile({
      plugins: ['@toolhost/plugin-crm-events', '@toolhost/plugin-crm-automation'],
      toolSets: {
        CrmEventsApi: { baseUrl: upstream.url },
        CrmAutomationApi: { baseUrl: upstream.url, settings: { userId: '42' } },
      },
    });
    const r = await cli(['--config', file, 'doctor', '--live'], { CRM_AUTH_PROVIDER_TOKEN: 'hs-doctor' });
    expect(r.code).toBe(0);
    expect(upstream.requests).toHaveLength(2);
    for (const q of upstream.requests) expect(q.method).toBe('GET');
    expect(r.stdout.match(/answered HTTP 200/g)).toHaveLength(2);
  });
});

describe('doctor names what is missing', () => {
  it('names the CrmAutomationApi tools that fail without settings.userId', async () => {
    const r = await cli(['--plugins', '@toolhost/plugin-crm-automation', 'doctor'], {
      CRM_AUTH_PROVIDER_TOKEN: 'hs-doctor',
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('CrmAutomationApi (9 tools): NOT READY');
    expect(r.stdout).toContain(
      'missing: setting userId: set toolSets.CrmAutomationApi.settings.userId (or CRM_AUTOMATION_API_USER_ID); without it 3 tools fail: CrmAutomationApi.GetUserSequences, CrmAutomationApi.EnrollContactInSequence, CrmAutomationApi.GetSequenceDetails',
    );
  });

  it('takes settings.userId from CRM_AUTOMATION_API_USER_ID, as the MCP Bundle sets it', async () => {
    const r = await cli(['--plugins', '@toolhost/plugin-crm-automation', 'doctor'], {
      CRM_AUTH_PROVIDER_TOKEN: 'hs-doctor',
      CRM_AUTOMATION_API_USER_ID: '4321',
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('CrmAutomationApi (9 tools): ready');
  });

  it('takes an unfilled ${…} placeholder for unset, not for a token', async () => {
    const r = await cli(['--plugins', '@toolhost/plugin-crm-automation', 'doctor'], {
      CRM_AUTH_PROVIDER_TOKEN: '${user_config.hubspot_token}',
      CRM_AUTOMATION_API_USER_ID: '4321',
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('CrmAutomationApi (9 tools): NOT READY');
    expect(r.stderr).toContain(
      'CRM_AUTH_PROVIDER_TOKEN is the unfilled placeholder ${user_config.hubspot_token}',
    );
  });

  it("takes a README's stand-in for a token as not ready, naming where it is set, never its value", async () => {
    const file = configFile({
      plugins: ['@toolhost/plugin-grid', '@toolhost/plugin-cdp-pipelines', '@toolhost/plugin-crm-events'],
      toolSets: { GridApi: { baseUrl: upstream.url } },
      auth: { providers: { 'crm-auth-provider': { token: 'your_token_here' } } },
      secrets: { CDP_API_KEY: 'changeme' },
    });
    const r = await cli(['--config', file, 'doctor', '--live'], {
      GRID_AUTH_PROVIDER_TOKEN: '<Airtable personal access token>',
    });
    expect(r.code).toBe(1);
    for (const set of ['GridApi', 'CdpPipelinesApi', 'CrmEventsApi'])
      expect(r.stdout).toMatch(new RegExp(`${set} \\(\\d+ tools\\): NOT READY`));
    expect(r.stdout).toContain(
      'missing: auth provider grid-auth-provider: GRID_AUTH_PROVIDER_TOKEN holds a placeholder, not a real value; set GRID_AUTH_PROVIDER_TOKEN',
    );
    expect(r.stdout).toContain(
      'missing: auth provider crm-auth-provider: auth.providers.crm-auth-provider.token holds a placeholder',
    );
    expect(r.stdout).toContain(
      'missing: secret CDP_API_KEY: CDP_API_KEY holds a placeholder, not a real value',
    );
    for (const value of ['Airtable personal access token', 'your_token_here', 'changeme'])
      expect(r.stdout + r.stderr).not.toContain(value);
    // Not ready, so not tried: the stand-in never reaches the upstream.
    expect(upstream.requests).toHaveLength(0);
  });

  it('shows names, paths and values from the config and environment with their unseen characters escaped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolhost-doctor-\u001b[31m-'));
    const file = join(dir, 'config.json');
    writeFileSync(
      file,
      JSON.stringify({
        plugins: ['toolhost-plugin-echo', 'toolhost-plugin-\u202eevil\r'],
        toolSets: { EchoApi: { baseUrl: upstream.url } },
      }),
    );
    const r = await cli(['--config', file, 'doctor'], {
      TOOLHOST_AUTH_ISSUER: 'http://127.0.0.1:9/\u202eevil',
    });
    expect(r.code).toBe(1);
    const shownDir = dir.replace('\u001b', '\\u001b');
    expect(r.stdout).toContain(`Config: ${shownDir}/config.json\n`);
    expect(r.stdout).toContain(
      `  toolhost-plugin-\\u202eevil\\r: CANNOT BE LOADED: Plugin package 'toolhost-plugin-\\u202eevil\\r' is not installed where the host looks (from ${shownDir}, `,
    );
    expect(r.stdout).toContain('problem: issuer: http://127.0.0.1:9/\\u202eevil UNREACHABLE');
    for (const raw of ['\u001b', '\u202e', '\r']) expect(r.stdout + r.stderr).not.toContain(raw);
  });

  it('fails when no plugin is installed or named', async () => {
    const r = await cli(['--config', configFile({ plugins: [] }), 'doctor']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('The configuration names no plugin to load.');
    expect(r.stdout).not.toContain('Everything is ready.');
  });
});
