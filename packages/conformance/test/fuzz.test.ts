import { REQUEST_BODY_PARAM, type ToolDeclaration } from '@toolhost/core';
import { sampleValue } from '@toolhost/engine/internal';
import {
  type RecordingUpstream,
  type SpawnedHost,
  spawnHost,
  startRecordingUpstream,
} from '@toolhost/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_STRINGS, malformedCases } from '../src/hostile-arguments.js';
import { allPluginsRegistry, pluginPackages, toolSetsAt } from '../src/plugins.js';

const packages = pluginPackages();
let upstream: RecordingUpstream;
let host: SpawnedHost;
/** Every declaration with the tool set it belongs to. */
let declarations: (ToolDeclaration & { toolSet: string })[];

/** The host's own preview tools (their arguments are checked by the host's tests), beside the plugins'. */
const WRITE_SAFETY_TOOLS = new Set(['preview_tool_call', 'apply_preview']);
const ALLOWED_CODES = new Set(['invalid_argument', 'payload_too_large', 'configuration_error']);

beforeAll(async () => {
  upstream = await startRecordingUpstream(() => ({ status: 200, body: { ok: true } }));
  const registry = await allPluginsRegistry();
  declarations = registry.list().map((t) => ({ ...t.declaration, toolSet: t.toolSet }));
  // Thousands of calls share a few sample base ids: vendor pacing would only slow the suite.
  const toolSets = toolSetsAt(registry, upstream.url, { pacing: false as const });
  const secrets = {
    CDP_API_KEY: 'fuzz-key',
    CRM_AUTH_PROVIDER_TOKEN: 'fuzz-token',
    GRID_AUTH_PROVIDER_TOKEN: 'fuzz-token',
  };
  host = await spawnHost({ plugins: packages, toolSets, mcp: { catalog: 'static' } }, { env: secrets });
});

afterAll(async () => {
  await host?.close();
  await upstream?.close();
});

const mcpName = (d: { toolSet: string; name: string }) => `${d.toolSet}_${d.name}`;

/**
 * Thousands of calls one after another, all CPU: ~9 s each on an idle 2-core machine; 5 minutes
 * holds a 30-fold slowdown (a loaded machine running this file beside two others took over 2).
 */
const FUZZ_TIMEOUT_MS = 300_000;

describe('every registered tool refuses malformed arguments and sends nothing', () => {
  it('covers all plugin packages', () => {
    expect(packages.length).toBeGreaterThan(0);
    expect(declarations.length).toBeGreaterThan(0);
  });

  it('answers each malformed case with a clear error', { timeout: FUZZ_TIMEOUT_MS }, async () => {
    const tools = (await host.client.listTools()).tools.filter((t) => !WRITE_SAFETY_TOOLS.has(t.name));
    let cases = 0;
    for (const tool of tools) {
      for (const c of malformedCases(tool.inputSchema as never)) {
        upstream.reset();
        const result = await host.client
          .callTool({ name: tool.name, arguments: c.args as Record<string, unknown> })
          .catch((e: Error) => e);
        const where = `${tool.name}: ${c.label}`;
        if (result instanceof Error) {
          // The SDK client itself refuses non-object arguments before sending.
          expect(result.message, where).toMatch(/arguments|Invalid|expected/i);
        } else {
          expect(result.isError, where).toBe(true);
          const error = (
            result.structuredContent as { error: { code: string; message: string; parameter?: string } }
          ).error;
          expect(ALLOWED_CODES.has(error.code), `${where}: ${error.code}`).toBe(true);
          expect(error.message.length, where).toBeGreaterThan(10);
          if (error.code === 'invalid_argument') expect(error.parameter, where).toBeTruthy();
        }
        expect(upstream.requests, where).toHaveLength(0);
        cases += 1;
      }
    }
    expect(cases).toBeGreaterThan(tools.length * 3);
  });
});

describe('hostile path values never change the target', () => {
  it('keeps every path inside its template', { timeout: FUZZ_TIMEOUT_MS }, async () => {
    let sent = 0;
    for (const decl of declarations) {
      const pathParams = (decl.params ?? []).filter((p) => p.in === 'path' && p.schema.type === 'string');
      if (pathParams.length === 0) continue;
      const base: Record<string, unknown> = {};
      for (const p of decl.params ?? [])
        if (p.required || p.executeOnly === 'required') base[p.name] = sampleValue(p.schema, p.name);
      if (decl.body?.kind === 'mode') {
        base.mode = 'execute';
        base[REQUEST_BODY_PARAM] = JSON.stringify(sampleValue(decl.body.schema, 'body'));
      }
      const template = decl.path.split('/');
      for (const param of pathParams) {
        for (const hostile of HOSTILE_STRINGS) {
          upstream.reset();
          const result = await host.client.callTool({
            name: mcpName(decl),
            arguments: { ...base, [param.name]: hostile },
          });
          const where = `${decl.toolSet}.${decl.name} ${param.name}=${JSON.stringify(hostile)}`;
          if (result.isError) {
            expect(upstream.requests, where).toHaveLength(0);
            continue;
          }
          expect(upstream.requests, where).toHaveLength(1);
          const req = upstream.requests[0]!;
          const segments = req.rawPath.split('/');
          expect(req.method, where).toBe(decl.method);
          const offset = segments.length - template.length;
          expect(offset, where).toBeGreaterThanOrEqual(0);
          const tail = segments.slice(offset);
          const index = template.indexOf(`{${param.apiName ?? param.name}}`);
          expect(decodeURIComponent(tail[index]!), where).toBe(hostile);
          template.forEach((seg, i) => {
            if (!seg.startsWith('{')) expect(tail[i], where).toBe(seg);
          });
          expect(req.rawQuery.includes('X-Injected'), where).toBe(false);
          sent += 1;
        }
      }
    }
    expect(sent).toBeGreaterThan(0);
  });

  it('still serves after all of that', async () => {
    const { tools } = await host.client.listTools();
    expect(tools.filter((t) => !WRITE_SAFETY_TOOLS.has(t.name)).length).toBe(declarations.length);
  });
});
