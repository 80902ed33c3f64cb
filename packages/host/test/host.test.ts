import { CONTRACT_VERSION, defineToolSetPlugin, type ToolPlugin } from '@toolhost/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { createHost } from '../src/host.js';
import { fixtureApp } from './support.js';

let upstream: RecordingUpstream;
beforeAll(async () => {
  upstream = await startRecordingUpstream();
});
afterAll(() => upstream.close());
beforeEach(() => upstream.reset());

const inline: ToolPlugin = defineToolSetPlugin({
  contractVersion: '2.0',
  name: 'inline-plugin',
  version: '0.0.1',
  toolSet: 'InlineApi',
  servers: { default: 'https://inline.invalid' },
  tools: [
    {
      name: 'ReadBatch',
      description: 'A POST that only reads.',
      method: 'POST',
      path: '/batch/read',
      auth: { kind: 'none' },
      hints: { readOnly: true },
      body: { kind: 'fields' },
      params: [
        {
          name: 'ids',
          in: 'body',
          bodyPath: 'inputs',
          schema: { type: 'array', items: { type: 'string' } },
          description: '',
        },
      ],
    },
  ],
});

describe('createHost (embedding API)', () => {
  it('loads plugins by package name and calls a tool for a user', async () => {
    const host = await createHost(
      {
        plugins: ['toolhost-plugin-echo'],
        toolSets: { EchoApi: { baseUrl: upstream.url } },
        auth: { providers: { 'echo-auth': { token: 'static-1' } } },
      },
      { configDir: fixtureApp, env: {} },
    );
    expect(host.plugins.map((p) => `${p.name}@${p.version}`)).toEqual(['toolhost-plugin-echo@1.2.3']);
    const outcome = await host.callTool('EchoApi.GetItem', { item_id: 'a b' }, { userId: 'alice' });
    expect(outcome).toEqual({ ok: true, kind: 'response', status: 200, body: { ok: true } });
    expect(upstream.requests[0]).toMatchObject({ method: 'GET', rawPath: '/items/a%20b' });
    expect(upstream.requests[0]!.headers.authorization).toBe('Bearer static-1');
    await host.close();
  });

  it('refuses, when discovering installed plugins, one built for another contract', async () => {
    await expect(createHost({}, { configDir: fixtureApp, env: {} })).rejects.toThrow(
      new RegExp(
        `Plugin toolhost-plugin-future@9\\.0\\.0 declares plugin contract 2\\.99; this host executes contract ${CONTRACT_VERSION}: .*upgrade the host`,
      ),
    );
  });

  it('refuses an incompatible plugin naming both contract versions', async () => {
    await expect(
      createHost({ plugins: ['toolhost-plugin-future'] }, { configDir: fixtureApp }),
    ).rejects.toThrow(`plugin contract 2.99; this host executes contract ${CONTRACT_VERSION}`);
  });

  it('explains a plugin that is not installed or not a plugin', async () => {
    await expect(
      createHost({ plugins: ['toolhost-plugin-missing'] }, { configDir: fixtureApp }),
    ).rejects.toThrow(/'toolhost-plugin-missing' is not installed/);
    await expect(createHost({ plugins: ['not-a-plugin'] }, { configDir: fixtureApp })).rejects.toThrow(
      /does not export a toolhost plugin/,
    );
  });

  it('takes plugin objects directly and environment tokens over config', async () => {
    const host = await createHost(
      {
        plugins: ['toolhost-plugin-echo'],
        toolSets: { EchoApi: { baseUrl: upstream.url } },
        auth: { providers: { 'echo-auth': { token: 'from-config' } } },
      },
      { configDir: fixtureApp, plugins: [inline], env: { ECHO_AUTH_TOKEN: 'from-env' } },
    );
    expect(
      host
        .listTools()
        .map((t) => t.name)
        .sort(),
    ).toEqual(['EchoApi.CreateItem', 'EchoApi.DeleteItem', 'EchoApi.GetItem', 'InlineApi.ReadBatch']);
    await host.callTool('EchoApi.GetItem', { item_id: 'x' });
    expect(upstream.requests[0]!.headers.authorization).toBe('Bearer from-env');
    await host.close();
  });

  it.each([
    [{ tools: { allow: ['EchoApi.*'] } }, ['EchoApi.CreateItem', 'EchoApi.DeleteItem', 'EchoApi.GetItem']],
    [{ tools: { deny: ['*.Delete*', 'InlineApi.*'] } }, ['EchoApi.CreateItem', 'EchoApi.GetItem']],
    [{ tools: { readOnly: true } }, ['EchoApi.GetItem', 'InlineApi.ReadBatch']],
    [{ toolSets: { EchoApi: { enabled: false } } }, ['InlineApi.ReadBatch']],
  ])('selects tools by config %j', async (selection, expected) => {
    const host = await createHost(
      { plugins: ['toolhost-plugin-echo'], ...selection },
      { configDir: fixtureApp, plugins: [inline] },
    );
    expect(
      host
        .listTools()
        .map((t) => t.name)
        .sort(),
    ).toEqual(expected);
    expect(await host.callTool('EchoApi.Hidden', {})).toMatchObject({
      ok: false,
      error: { code: 'unknown_tool' },
    });
    await host.close();
  });

  it('reports a missing token as authorization_required naming where to set it', async () => {
    const host = await createHost({ plugins: ['toolhost-plugin-echo'] }, { configDir: fixtureApp, env: {} });
    const outcome = await host.callTool('EchoApi.GetItem', { item_id: 'x' });
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'authorization_required', message: expect.stringContaining('ECHO_AUTH_TOKEN') },
    });
    await host.close();
  });

  it('exposes hints and JSON-body building from plain parameters', async () => {
    const host = await createHost(
      { toolSets: { InlineApi: { baseUrl: upstream.url } } },
      { plugins: [inline], configDir: fixtureApp },
    );
    expect(host.getTool('InlineApi.ReadBatch')!.hints).toEqual({
      readOnly: true,
      destructive: false,
      idempotent: true,
      openWorld: true,
    });
    await host.callTool('InlineApi.ReadBatch', { ids: ['1', '2'] });
    expect(upstream.requests[0]).toMatchObject({
      method: 'POST',
      path: '/batch/read',
      body: { inputs: ['1', '2'] },
    });
    await host.close();
  });
});
