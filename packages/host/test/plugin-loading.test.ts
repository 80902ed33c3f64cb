import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTRACT_VERSION, defineToolSetPlugin, type ToolDeclaration, type ToolPlugin } from '@toolhost/core';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/load-config.js';
import { createHost } from '../src/host.js';
import { PluginLoadError } from '../src/plugins/load-plugins.js';

const getRow: ToolDeclaration = {
  name: 'GetRow',
  description: 'Get one row.',
  method: 'GET',
  path: '/rows/{rowId}',
  auth: { kind: 'none' },
  params: [
    {
      name: 'row_id',
      in: 'path',
      apiName: 'rowId',
      required: true,
      schema: { type: 'string' },
      description: '',
    },
  ],
};

function plugin(contractVersion: `${number}.${number}`, tools: unknown[] = [getRow]): ToolPlugin {
  return defineToolSetPlugin({
    contractVersion,
    name: 'rows-plugin',
    version: '3.1.4',
    toolSet: 'RowsApi',
    servers: { default: 'https://rows.invalid' },
    tools: tools as ToolDeclaration[],
    settingsSchema: {
      type: 'object',
      additionalProperties: false,
      properties: { region: { type: 'string', enum: ['us', 'eu'] } },
    },
  });
}

describe('the plugin contract at load', () => {
  it('accepts a plugin written for this contract', async () => {
    const host = await createHost(
      {},
      { plugins: [plugin(CONTRACT_VERSION as `${number}.${number}`)], env: {} },
    );
    expect(host.listTools().map((t) => t.name)).toEqual(['RowsApi.GetRow']);
    await host.close();
  });

  it('refuses a plugin written for a newer contract, naming the plugin, its contract and the host’s', async () => {
    const error = await createHost({}, { plugins: [plugin('2.99')], env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PluginLoadError);
    expect((error as Error).message).toBe(
      `Plugin rows-plugin@3.1.4 declares plugin contract 2.99; this host executes contract ${CONTRACT_VERSION}: it was written for contract 2.99, newer than this host's ${CONTRACT_VERSION}; upgrade the host.`,
    );
  });

  it('refuses a plugin of another major in either direction', async () => {
    await expect(createHost({}, { plugins: [plugin('3.0')], env: {} })).rejects.toThrow(/upgrade the host/);
    await expect(createHost({}, { plugins: [plugin('1.1')], env: {} })).rejects.toThrow(/upgrade the plugin/);
  });

  it("checks every declaration with the host's own core, naming plugin, tool and field", async () => {
    const legacy = { ...getRow, params: [{ ...getRow.params![0]!, apiName: undefined, as: 'rowId' }] };
    const error = await createHost(
      {},
      { plugins: [plugin('2.0', [JSON.parse(JSON.stringify(legacy))])], env: {} },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PluginLoadError);
    expect((error as Error).message).toContain('Plugin rows-plugin@3.1.4 has invalid tool declarations:');
    expect((error as Error).message).toContain(
      "RowsApi.GetRow params.row_id.as: 'as' is not part of the declaration vocabulary of this host's contract",
    );
  });

  it('checks the past requests a plugin declares (contract 2.6), naming the field', async () => {
    const withPast = (pastRequests: unknown) =>
      defineToolSetPlugin({
        contractVersion: '2.6',
        name: 'rows-plugin',
        version: '3.1.4',
        toolSet: 'RowsApi',
        servers: { default: 'https://rows.invalid' },
        tools: [getRow],
        pastRequests: pastRequests as never,
      });
    await expect(
      createHost({}, { plugins: [withPast([{ request: 'where did row 7 go', tools: [] }])], env: {} }),
    ).rejects.toThrow(
      /Plugin rows-plugin@3\.1\.4 has invalid tool declarations: RowsApi pastRequests\.0\.tools: must NOT have fewer than 1 items/,
    );
    const host = await createHost(
      {},
      { plugins: [withPast([{ request: 'where did row 7 go', tools: ['GetRow'] }])], env: {} },
    );
    expect(host.serving.pastRequests).toEqual([{ request: 'where did row 7 go', tools: ['RowsApi.GetRow'] }]);
    await host.close();
  });

  it('checks a plugin written without defineToolSetPlugin just the same', async () => {
    const handWritten: ToolPlugin = {
      contractVersion: '2.0',
      name: 'hand-written',
      version: '0.1.0',
      toolSet: 'RowsApi',
      register(container) {
        container.register(Symbol.for('toolhost.tool-set'), {
          useValue: {
            contractVersion: '2.0',
            toolSet: 'RowsApi',
            plugin: { name: 'hand-written', version: '0.1.0' },
            servers: { default: 'https://rows.invalid' },
            tools: [{ ...getRow, path: '/rows/{id}' }],
          },
        });
      },
    };
    await expect(createHost({}, { plugins: [handWritten], env: {} })).rejects.toThrow(
      /Plugin hand-written@0\.1\.0 has invalid tool declarations: RowsApi\.GetRow path: no parameter fills \{id\}/,
    );
  });
});

describe('a plugin that cannot be loaded', () => {
  it("is refused in words whose unseen characters are escaped, Node's and the plugin's own too", async () => {
    // The config's directory, the plugin's folder and its manifest each hold a control or bidi
    // character; Node's resolution error quotes the path raw.
    const dir = mkdtempSync(join(tmpdir(), 'toolhost-\u001b[31m-'));
    mkdirSync(join(dir, 'rows\u202e'));
    writeFileSync(
      join(dir, 'rows\u202e', 'package.json'),
      JSON.stringify({ name: 'rows', main: 'gone\r.js' }),
    );
    const unresolved = await createHost({ plugins: ['./rows\u202e'] }, { configDir: dir, env: {} }).catch(
      (e: unknown) => e,
    );
    expect(unresolved).toBeInstanceOf(PluginLoadError);
    const { message } = unresolved as Error;
    expect(message).toContain("Plugin path './rows\\u202e' (");
    expect(message).toContain(
      `cannot be imported: Cannot find module '${dir.replace('\u001b', '\\u001b')}/rows\\u202e/gone\\r.js'`,
    );
    // A plugin that says its name and version in such characters is named by them escaped.
    const named = { ...plugin('2.99'), name: 'rows\u001b[2K', version: '3.1.4\u202e' };
    const newer = await createHost({}, { plugins: [named], env: {} }).catch((e: unknown) => e);
    expect((newer as Error).message).toMatch(
      /^Plugin rows\\u001b\[2K@3\.1\.4\\u202e declares plugin contract 2\.99;/,
    );
    for (const error of [unresolved, newer])
      for (const raw of ['\u001b', '\u202e', '\r']) expect((error as Error).message).not.toContain(raw);
  });
});

describe('plugin settings', () => {
  it('are checked against the plugin’s schema, naming a wrong key and the accepted ones', async () => {
    const error = await createHost(
      { toolSets: { RowsApi: { settings: { regoin: 'eu' } } } },
      { plugins: [plugin('2.0')], env: {} },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      "Invalid settings for rows-plugin: 'toolSets.RowsApi.settings.regoin' is not a setting of RowsApi (accepted: region).",
    );
  });

  it('name a wrong value', async () => {
    await expect(
      createHost(
        { toolSets: { RowsApi: { settings: { region: 'apac' } } } },
        { plugins: [plugin('2.0')], env: {} },
      ),
    ).rejects.toThrow(/'toolSets\.RowsApi\.settings\.region' \(or ROWS_API_REGION\) must be one of/);
  });

  it('name the environment variable a wrong value may have come from', async () => {
    await expect(
      createHost({}, { plugins: [plugin('2.0')], env: { ROWS_API_REGION: 'mars' } }),
    ).rejects.toThrow(
      /^Invalid settings for rows-plugin: 'toolSets\.RowsApi\.settings\.region' \(or ROWS_API_REGION\) must be one of/,
    );
  });
});

describe('settings that would do nothing', () => {
  it('a tool set no plugin provides is an error naming it, the loaded ones and the likely one', async () => {
    const error = await createHost(
      { toolSets: { RowApi: { baseUrl: 'http://127.0.0.1:9' } } },
      { plugins: [plugin('2.0')], env: {} },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      "'toolSets.RowApi': no loaded plugin provides a tool set of that name (loaded: RowsApi). Did you mean RowsApi?",
    );
  });

  it('an auth provider or a secret no loaded tool uses is refused, with the likely one', async () => {
    const withCredentials = defineToolSetPlugin({
      contractVersion: '2.3',
      name: 'rows-plugin',
      version: '3.1.4',
      toolSet: 'RowsApi',
      servers: { default: 'https://rows.invalid' },
      tools: [
        { ...getRow, auth: { kind: 'provider', provider: 'rows-auth-provider', scopes: [] } },
        {
          ...getRow,
          name: 'GetRowByKey',
          auth: { kind: 'secret', secret: 'ROWS_API_KEY', scheme: 'bearer' },
        },
      ],
    });
    const error = await createHost(
      { auth: { providers: { 'rows-auth': { token: 't' } } }, secrets: { ROWS_API_KY: 'k' } },
      { plugins: [withCredentials], env: {} },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      "'auth.providers.rows-auth': no loaded tool uses an auth provider of that id (used: rows-auth-provider). Did you mean rows-auth-provider? 'secrets.ROWS_API_KY': no loaded tool uses a secret of that name (used: ROWS_API_KEY). Did you mean ROWS_API_KEY?",
    );
  });

  it("a vendor's name given for a tool set suggests the vendor's tool sets", async () => {
    const vendorPlugin = (toolSet: string) =>
      defineToolSetPlugin({
        contractVersion: '2.3',
        name: `${toolSet}-plugin`,
        version: '1.0.0',
        toolSet,
        vendor: 'Rowbase',
        servers: { default: 'https://rows.invalid' },
        tools: [getRow],
      });
    const plugins = [vendorPlugin('RowsApi'), vendorPlugin('SheetsApi')];
    await expect(createHost({ tools: { toolSets: ['rowbase'] } }, { plugins, env: {} })).rejects.toThrow(
      "tools.toolSets (--tool-sets, TOOLHOST_TOOL_SETS): 'rowbase' is not a loaded tool set (loaded: RowsApi, SheetsApi). rowbase is a vendor: did you mean RowsApi or SheetsApi?",
    );
    await expect(createHost({ toolSets: { Rowbase: {} } }, { plugins, env: {} })).rejects.toThrow(
      'Rowbase is a vendor: did you mean RowsApi or SheetsApi?',
    );
  });

  it('an allow or deny glob that matches no tool is an error naming the key', async () => {
    const error = await createHost(
      { tools: { allow: ['RowsApi.*', 'RowApi.*'], deny: ['*.Nothing'] } },
      { plugins: [plugin('2.0')], env: {} },
    ).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      "tools.allow[1]: 'RowApi.*' matches no tool; tools are named <ToolSet>.<Tool> (tool sets: RowsApi). tools.deny[0]: '*.Nothing' matches no tool; tools are named <ToolSet>.<Tool> (tool sets: RowsApi).",
    );
  });
});
