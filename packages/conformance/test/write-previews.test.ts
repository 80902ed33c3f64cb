import {
  type JsonSchema,
  REQUEST_BODY_PARAM,
  type RequestPreview,
  type ToolDeclaration,
} from '@toolhost/core';
import { sampleValue } from '@toolhost/engine/internal';
import {
  type RecordingUpstream,
  type SpawnedHost,
  spawnHost,
  startRecordingUpstream,
} from '@toolhost/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allPluginsRegistry, pluginPackages, toolSetsAt } from '../src/plugins.js';

// Every write tool of every plugin, previewed with minimal valid arguments and a credential
// configured: the preview shows the credential's header redacted, and nothing is sent.
const packages = pluginPackages();
const SECRETS = {
  CDP_API_KEY: 'cdp-secret-value-0123456789',
  CRM_AUTH_PROVIDER_TOKEN: 'crm-token-value-0123456789',
  GRID_AUTH_PROVIDER_TOKEN: 'grid-token-value-0123456789',
};
const BASIC = Buffer.from(`${SECRETS.CDP_API_KEY}:`).toString('base64');

let upstream: RecordingUpstream;
let host: SpawnedHost;
let writes: (ToolDeclaration & { toolSet: string })[];

beforeAll(async () => {
  upstream = await startRecordingUpstream(() => ({ status: 200, body: { ok: true } }));
  const registry = await allPluginsRegistry();
  writes = registry
    .list()
    .filter((t) => !t.hints.readOnly)
    .map((t) => ({ ...t.declaration, toolSet: t.toolSet }));
  const toolSets: Record<string, { baseUrl: string; baseUrls: Record<string, string>; settings?: object }> =
    toolSetsAt(registry, upstream.url);
  // The sequence tools act as a configured HubSpot user.
  toolSets.CrmAutomationApi!.settings = { userId: '42' };
  // One user previews every write tool here, more than the default per-user bound allows.
  host = await spawnHost(
    { plugins: packages, toolSets, mcp: { catalog: 'static' }, tools: { previewsPerUser: 1000 } },
    { env: SECRETS },
  );
});

afterAll(async () => {
  await host?.close();
  await upstream?.close();
});

/** A value for a parameter; the one pattern the catalog uses (numeric ids) is met too. */
function sample(schema: JsonSchema, name: string): unknown {
  return schema.pattern === '^[0-9]+$' ? '1' : sampleValue(schema, name);
}

/** The arguments a call needs and nothing more: required parameters (one of each required group), and a mode tool's body. */
function minimalArgs(decl: ToolDeclaration): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const needed = new Set(decl.requiresAnyOf?.map((group) => group[0]));
  for (const p of decl.params ?? [])
    if (!p.fromSetting && (p.required || p.executeOnly === 'required' || needed.has(p.name)))
      args[p.name] = sample(p.schema, p.name);
  if (decl.body?.kind === 'mode') {
    args.mode = 'execute';
    args[REQUEST_BODY_PARAM] = JSON.stringify(sampleValue(decl.body.schema, 'body'));
  }
  return args;
}

describe('a preview of every write tool', () => {
  it('shows the request with every credential redacted, and sends nothing', async () => {
    expect(writes.length).toBeGreaterThan(50);
    const refused: string[] = [];
    for (const decl of writes) {
      const name = `${decl.toolSet}_${decl.name}`;
      const result = await host.client.callTool({
        name: 'preview_tool_call',
        arguments: { name, arguments: minimalArgs(decl) },
      });
      const text = (result.content as { type: string; text: string }[])[0]!.text;
      for (const secret of [...Object.values(SECRETS), BASIC]) expect(text, name).not.toContain(secret);
      if (result.isError) {
        refused.push(`${name}: ${text}`);
        continue;
      }
      const preview = JSON.parse(text) as RequestPreview;
      expect(preview.request.method, name).toBe(decl.method);
      expect(preview.request.url.startsWith(upstream.url), name).toBe(true);
      if (decl.auth.kind !== 'none') expect(preview.request.headers.authorization, name).toBe('[redacted]');
      expect(preview.preview_id, name).toMatch(/^pv_/);
    }
    // Minimal arguments fit every tool: a refusal here is a generator gap or a tool bug to read.
    expect(refused).toEqual([]);
    expect(upstream.requests).toHaveLength(0);
  });
});
