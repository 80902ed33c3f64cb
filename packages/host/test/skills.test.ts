import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CONTRACT_VERSION, registerToolSet, type ToolPlugin } from '@toolhost/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { fixtureApp, REPOSITORY_PLUGINS } from './support.js';

const SKILLS: Record<string, string> = {
  CdpPipelinesApi: 'skill://customerio-data-pipelines/SKILL.md',
  CrmAutomationApi: 'skill://hubspot-automation/SKILL.md',
  CrmEventsApi: 'skill://hubspot-custom-events/SKILL.md',
  CrmMarketingApi: 'skill://hubspot-marketing/SKILL.md',
  GridApi: 'skill://airtable-web-api/SKILL.md',
};

async function v2Client(http: HttpServerHandle, era: 'legacy' | 'modern'): Promise<Client> {
  const client = new Client(
    { name: 'skills-test', version: '0' },
    era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  expect(client.getProtocolEra()).toBe(era);
  return client;
}

describe('the five tool sets’ skills', () => {
  let host: Host;
  let http: HttpServerHandle;
  beforeAll(async () => {
    host = await createHost({}, { pluginPackages: [...REPOSITORY_PLUGINS], configDir: fixtureApp, env: {} });
    http = await serveHttp(host, { port: 0 });
  });
  afterAll(async () => {
    await http?.close();
    await host?.close();
  });

  for (const era of ['legacy', 'modern'] as const) {
    it(`are listed and read, verified, by the SDK's skills client (${era} era)`, async () => {
      const client = await v2Client(http, era);
      const skills = new SkillsClient(client);
      expect(skills.supported).toBe(true);
      const { skills: entries } = await skills.list();
      expect(entries.map((s) => s.uri).sort()).toEqual(Object.values(SKILLS).sort());
      const mcpNames = new Set((await host.listTools()).map((t) => t.name.replace('.', '_')));
      for (const entry of entries) {
        const file = await skills.read(entry);
        expect(file.verified).toBe(true);
        expect(file.frontmatter?.name).toBe(entry.uri.split('/')[2]);
        expect(String(file.frontmatter?.description).length).toBeGreaterThan(100);
        // Each step names a real tool: every `Set_Tool` the skill mentions is one of the host's.
        const named = [...(file.body ?? '').matchAll(/`([A-Z][A-Za-z]+Api_[A-Za-z]+)`/g)].map((m) => m[1]!);
        expect(named.length, entry.uri).toBeGreaterThan(5);
        for (const name of named) expect(mcpNames, `${entry.uri} names ${name}`).toContain(name);
        // And `get` answers the same entry.
        expect((await skills.get(entry.uri)).skill).toEqual(entry);
      }
      await client.close();
    });
  }

  it('are resources for clients without the extension', async () => {
    const client = new V1Client({ name: 'no-skills', version: '0' });
    await client.connect(new V1HttpTransport(new URL(http.url)));
    const { resources } = await client.listResources();
    const skillResources = resources.filter((r) => r.uri.startsWith('skill://'));
    expect(skillResources.map((r) => r.uri).sort()).toEqual(Object.values(SKILLS).sort());
    const read = await client.readResource({ uri: SKILLS.GridApi! });
    const text = (read.contents[0] as { text: string }).text;
    expect(text).toMatch(/^---\nname: airtable-web-api\n/);
    expect(text).toContain('GridApi_ListGridBases');
    await client.close();
  });

  it('are pointed to by search_tools and describe_tools, for the set of each tool', async () => {
    const client = await v2Client(http, 'legacy');
    // And by the instructions, for agents that never call search_tools.
    for (const uri of Object.values(SKILLS)) expect(client.getInstructions()).toContain(uri);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('search_tools');
    const found = await client.callTool({
      name: 'search_tools',
      arguments: { query: 'list the records of an airtable table', limit: 3 },
    });
    const value = found.structuredContent as { tools: { toolSet: string }[]; skills: Record<string, string> };
    expect(value.tools[0]!.toolSet).toBe('GridApi');
    expect(value.skills).toEqual(
      Object.fromEntries([...new Set(value.tools.map((t) => t.toolSet))].map((s) => [s, SKILLS[s]])),
    );
    const described = await client.callTool({
      name: 'describe_tools',
      arguments: { names: ['GridApi_ListGridRecords', 'CdpPipelinesApi_TrackUserEvent'] },
    });
    const tools = JSON.parse((described.content as { text: string }[])[0]!.text).tools as { skill: string }[];
    expect(tools.map((t) => t.skill)).toEqual([SKILLS.GridApi, SKILLS.CdpPipelinesApi]);
    await client.close();
  });
});

/** A third-party plugin shipping its skill the same way, from a folder of its own. */
function pluginWithSkill(toolSet: string, folder: string): ToolPlugin {
  return {
    contractVersion: CONTRACT_VERSION,
    name: `third-party-${toolSet.toLowerCase()}`,
    version: '1.0.0',
    toolSet,
    register(container) {
      registerToolSet(container, {
        contractVersion: CONTRACT_VERSION,
        toolSet,
        plugin: { name: `third-party-${toolSet.toLowerCase()}`, version: '1.0.0' },
        servers: { default: 'http://127.0.0.1:9' },
        tools: [
          {
            name: 'GetThing',
            description: 'Reads a thing.',
            method: 'GET',
            path: '/thing',
            auth: { kind: 'none' },
            hints: { readOnly: true },
          },
        ],
        skill: pathToFileURL(folder).href,
      });
    },
  };
}

describe('a third-party plugin’s skill', () => {
  it('is served beside the others, with the files it links to; a malformed one is left out', async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolhost-skill-'));
    const good = join(root, 'things-api');
    mkdirSync(join(good, 'references'), { recursive: true });
    writeFileSync(
      join(good, 'SKILL.md'),
      '---\nname: things-api\ndescription: "How to read things with ThingsApi_GetThing."\n---\n\n# Things\n\nSee [ids](references/IDS.md).\n',
    );
    writeFileSync(join(good, 'references', 'IDS.md'), '# Ids\n\nThings are `thg…`.\n');
    // Named unlike its folder: the format's rule, which the SDK checks.
    const bad = join(root, 'broken-api');
    mkdirSync(bad);
    writeFileSync(join(bad, 'SKILL.md'), '---\nname: another-name\ndescription: "Broken."\n---\n\nx\n');
    const warnings: unknown[] = [];
    const host = await createHost(
      {},
      {
        plugins: [pluginWithSkill('ThingsApi', good), pluginWithSkill('BrokenApi', bad)],
        configDir: fixtureApp,
        env: {},
        logger: {
          warn: (o: unknown) => warnings.push(o),
          info: () => {},
          error: () => {},
          debug: () => {},
        } as never,
      },
    );
    const http = await serveHttp(host, { port: 0 });
    try {
      const client = await v2Client(http, 'legacy');
      const skills = new SkillsClient(client);
      const { skills: entries } = await skills.list();
      expect(entries.map((s) => s.uri)).toEqual(['skill://things-api/SKILL.md']);
      const ids = await skills.read(entries[0]!, 'references/IDS.md');
      expect(ids.verified).toBe(true);
      expect(ids.text).toContain('thg…');
      expect(JSON.stringify(warnings)).toMatch(/broken-api/);
      await client.close();
    } finally {
      await http.close();
      await host.close();
    }
  });
});
