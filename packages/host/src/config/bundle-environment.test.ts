// biome-ignore-all lint/suspicious/noTemplateCurlyInString: MCP Bundle templates, written literally
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLE_MANIFEST_ENV, bundleFields, howToSet, withoutPlaceholders } from './bundle-environment.js';
import { settingEnvName, settingHint } from './settings-from-env.js';

function manifestFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'toolhost-manifest-')), 'manifest.json');
  writeFileSync(
    file,
    JSON.stringify({
      server: {
        mcp_config: {
          env: {
            GRID_AUTH_PROVIDER_TOKEN: '${user_config.airtable_token}',
            CRM_AUTOMATION_API_USER_ID: '${user_config.hubspot_user_id}',
          },
        },
      },
      user_config: {
        airtable_token: { title: 'Airtable token' },
        hubspot_user_id: { title: 'HubSpot user id' },
      },
    }),
  );
  return file;
}

describe('the environment an MCP Bundle gives', () => {
  it('drops values that are an unfilled ${…} template, warning with the field the bundle shows', () => {
    const { env, warnings } = withoutPlaceholders({
      [BUNDLE_MANIFEST_ENV]: manifestFile(),
      GRID_AUTH_PROVIDER_TOKEN: '${user_config.airtable_token}',
      CDP_API_KEY: 'cdp-key',
      SOME_TEXT: 'costs ${5} a month',
    });
    expect(env.GRID_AUTH_PROVIDER_TOKEN).toBeUndefined();
    expect(env.CDP_API_KEY).toBe('cdp-key');
    expect(env.SOME_TEXT).toBe('costs ${5} a month');
    expect(warnings).toEqual([
      "GRID_AUTH_PROVIDER_TOKEN is the unfilled placeholder ${user_config.airtable_token} (the extension's “Airtable token” field); treated as unset.",
    ]);
  });

  it('names the field to fill in from a bundle, and the variable or config key elsewhere', () => {
    const fields = bundleFields({ [BUNDLE_MANIFEST_ENV]: manifestFile() });
    expect(howToSet('GRID_AUTH_PROVIDER_TOKEN', fields)).toBe(
      "fill in the extension's “Airtable token” field",
    );
    expect(howToSet('CDP_API_KEY', fields)).toBe('set CDP_API_KEY');
    expect(settingHint('CrmAutomationApi', 'userId', fields)).toBe(
      "fill in the extension's “HubSpot user id” field",
    );
    expect(settingHint('CrmAutomationApi', 'userId', new Map())).toBe(
      'set toolSets.CrmAutomationApi.settings.userId (or CRM_AUTOMATION_API_USER_ID)',
    );
    expect(bundleFields({}).size).toBe(0);
  });

  it('reads no more of a manifest than a config file, and goes on without one past that', () => {
    // /dev/zero was read until memory ran out, by every command, before the config was read.
    expect(bundleFields({ [BUNDLE_MANIFEST_ENV]: '/dev/zero' }).size).toBe(0);
    const large = manifestFile();
    expect(bundleFields({ [BUNDLE_MANIFEST_ENV]: large }).size).toBe(2);
    writeFileSync(large, readFileSync(large, 'utf8').padEnd(1024 * 1024 + 1, ' '));
    expect(bundleFields({ [BUNDLE_MANIFEST_ENV]: large }).size).toBe(0);
  });

  it('spells a setting’s variable from the tool set and setting names', () => {
    expect(settingEnvName('CrmAutomationApi', 'userId')).toBe('CRM_AUTOMATION_API_USER_ID');
    expect(settingEnvName('GridApi', 'baseId')).toBe('GRID_API_BASE_ID');
  });
});
