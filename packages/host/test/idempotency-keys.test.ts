import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestPreview, ToolOutcome } from '@toolhost/core';
import { MemoryTokenStore } from '@toolhost/credentials';
import { callFingerprint, FileRecords } from '@toolhost/write-safety';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { createHost, type Host } from '../src/host.js';
import { inlinePlugin } from './support.js';
import { mcpClient, textOf, WRITE_KEY, writeHost, writeTools } from './write-support.js';

let upstream: RecordingUpstream;
let host: Host;
let served = 0;
beforeAll(async () => {
  // Each answer numbered, so that a stored outcome is told apart from a second request's.
  upstream = await startRecordingUpstream(() => ({ status: 200, body: { n: ++served }, delayMs: 50 }));
  host = await writeHost(upstream.url);
});
afterAll(async () => {
  await host.close();
  await upstream.close();
});
beforeEach(() => upstream.reset());

const update = (title = 'T') => ({ id: 'thing-1', title });
const code = (o: ToolOutcome) => (o.ok ? undefined : o.error.code);

describe('idempotency keys (embedding API)', () => {
  it('sends once for two calls with one key, and both get the same outcome', async () => {
    const first = await host.callTool('WriteApi.UpdateThing', update(), { idempotencyKey: 'k-two' });
    const second = await host.callTool('WriteApi.UpdateThing', update(), { idempotencyKey: 'k-two' });
    expect(first.ok).toBe(true);
    expect(second).toEqual(first);
    expect(upstream.requests).toHaveLength(1);
  });

  it('answers idempotency_conflict for the same key with other arguments, and sends nothing', async () => {
    await host.callTool('WriteApi.UpdateThing', update('A'), { idempotencyKey: 'k-conflict' });
    upstream.reset();
    const other = await host.callTool('WriteApi.UpdateThing', update('B'), { idempotencyKey: 'k-conflict' });
    expect(code(other)).toBe('idempotency_conflict');
    expect(upstream.requests).toHaveLength(0);
  });

  it('makes one upstream request for 20 concurrent calls with one key, all with its outcome', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () =>
        host.callTool('WriteApi.UpdateThing', update(), { idempotencyKey: 'k-20' }),
      ),
    );
    expect(upstream.requests).toHaveLength(1);
    for (const o of outcomes) expect(o).toEqual(outcomes[0]);
  });

  it('keeps keys per user, and frees a key whose call never reached the upstream', async () => {
    await host.callTool('WriteApi.UpdateThing', update(), { idempotencyKey: 'k-user', userId: 'alice' });
    await host.callTool('WriteApi.UpdateThing', update(), { idempotencyKey: 'k-user', userId: 'bob' });
    expect(upstream.requests).toHaveLength(2);
    upstream.reset();
    const invalid = await host.callTool('WriteApi.UpdateThing', { id: 'x' }, { idempotencyKey: 'k-free' });
    expect(code(invalid)).toBe('invalid_argument');
    const valid = await host.callTool('WriteApi.UpdateThing', update(), { idempotencyKey: 'k-free' });
    expect(valid.ok).toBe(true);
    expect(upstream.requests).toHaveLength(1);
  });

  it('ignores a key on a read-only tool: reads change nothing', async () => {
    await host.callTool('WriteApi.ListThings', {}, { idempotencyKey: 'k-read' });
    await host.callTool('WriteApi.ListThings', {}, { idempotencyKey: 'k-read' });
    expect(upstream.requests).toHaveLength(2);
  });

  it('refuses a key that cannot guard the call (empty, not a string), naming it, and sends nothing', async () => {
    for (const key of ['', 'k'.repeat(256), 42, { id: 1 }]) {
      const outcome = await host.callTool('WriteApi.UpdateThing', update(), {
        idempotencyKey: key as string,
      });
      expect(outcome.ok ? undefined : outcome.error).toMatchObject({
        code: 'invalid_argument',
        parameter: 'idempotencyKey',
      });
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it('answers arguments it cannot read with invalid_argument, not a thrown error, and sends nothing', async () => {
    const args = {
      id: 'thing-1',
      get title(): string {
        throw new Error('not loaded');
      },
    };
    const outcome = await host.callTool('WriteApi.UpdateThing', args, { idempotencyKey: 'k-unreadable' });
    expect(outcome.ok ? undefined : outcome.error).toMatchObject({
      code: 'invalid_argument',
      parameter: 'title',
    });
    expect(upstream.requests).toHaveLength(0);
  });
});

describe('idempotency keys over MCP', () => {
  it('takes the key from _meta on tools/call, and as idempotency_key on call_tool and apply_preview', async () => {
    const client = await mcpClient(host);
    const meta = { 'toolhost/idempotencyKey': 'k-mcp' };
    const a = await client.callTool({ name: 'WriteApi_UpdateThing', arguments: update(), _meta: meta });
    const b = await client.callTool({ name: 'WriteApi_UpdateThing', arguments: update(), _meta: meta });
    expect(b.content).toEqual(a.content);
    expect(upstream.requests).toHaveLength(1);
    const wrongKey = await client.callTool({
      name: 'WriteApi_UpdateThing',
      arguments: update(),
      _meta: { 'toolhost/idempotencyKey': 7 },
    });
    expect(textOf(wrongKey)).toMatchObject({
      error: { code: 'invalid_argument', parameter: '_meta.toolhost/idempotencyKey' },
    });

    const dynamic = await writeHost(upstream.url, { mcp: { catalog: 'dynamic' } });
    const discovery = await mcpClient(dynamic);
    upstream.reset();
    const call = {
      name: 'call_tool',
      arguments: { name: 'WriteApi_UpdateThing', arguments: update(), idempotency_key: 'k-ct' },
    };
    const c = await discovery.callTool(call);
    expect((await discovery.callTool(call)).content).toEqual(c.content);
    expect(upstream.requests).toHaveLength(1);

    upstream.reset();
    const preview = textOf(
      await discovery.callTool({
        name: 'preview_tool_call',
        arguments: { name: 'WriteApi_UpdateThing', arguments: update() },
      }),
    ) as RequestPreview;
    const apply = {
      name: 'apply_preview',
      arguments: { preview_id: preview.preview_id, idempotency_key: 'k-apply' },
    };
    const first = await discovery.callTool(apply);
    // With its key, applying again answers the first outcome rather than preview_used.
    expect((await discovery.callTool(apply)).content).toEqual(first.content);
    expect(upstream.requests).toHaveLength(1);
    await dynamic.close();
  });
});

// Across replicas sharing Redis: test/replica-scenarios.ts (writesAcrossReplicas), run by the
// standalone, Sentinel and Cluster suites.

describe('idempotency keys and previews across a restart (encrypted file)', () => {
  const TOKEN_KEY = 'token-encryption-key-for-restarts';
  const onDisk = (dataDir: string) => ({ TOOLHOST_TOKEN_KEY: TOKEN_KEY, TOOLHOST_DATA_DIR: dataDir });

  it('answers a key used before the restart with its stored outcome, sending nothing', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'toolhost-restart-'));
    const before = await writeHost(upstream.url, {}, onDisk(dataDir));
    const first = await before.callTool('WriteApi.UpdateThing', update('restart-title'), {
      idempotencyKey: 'k-restart',
    });
    expect(first.ok).toBe(true);
    await before.close();

    const file = join(dataDir, 'write-records.enc.jsonl');
    const sealed = readFileSync(file, 'utf8');
    for (const plain of ['restart-title', 'thing-1', WRITE_KEY]) expect(sealed).not.toContain(plain);

    const after = await writeHost(upstream.url, {}, onDisk(dataDir));
    const again = await after.callTool('WriteApi.UpdateThing', update('restart-title'), {
      idempotencyKey: 'k-restart',
    });
    expect(again).toEqual(first);
    expect(
      code(await after.callTool('WriteApi.UpdateThing', update('other'), { idempotencyKey: 'k-restart' })),
    ).toBe('idempotency_conflict');
    expect(upstream.requests).toHaveLength(1);
    await after.close();
  });

  it('answers idempotency_outcome_unknown at once for a key whose host stopped mid-call, sending nothing', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'toolhost-restart-'));
    // What a host killed while sending leaves in its file: the claim and the attempt, no outcome.
    const left = FileRecords.inDirectory(dataDir, TOKEN_KEY);
    const id = createHash('sha256').update('default\u0000k-killed').digest('base64url');
    const marker = `${callFingerprint('WriteApi.UpdateThing', update())} a-previous-run 0123`;
    await left.add(`idempotency-claim:${id}`, marker, 15 * 60_000);
    await left.put(`idempotency-attempt:${id}`, marker, 60_000);
    await left.flush();
    const after = await writeHost(upstream.url, {}, onDisk(dataDir));
    const started = Date.now();
    const retried = await after.callTool('WriteApi.UpdateThing', update(), { idempotencyKey: 'k-killed' });
    expect(code(retried)).toBe('idempotency_outcome_unknown');
    // At once: a host that waited for the claim would take idempotencyWaitSeconds (10 s); the
    // call itself takes milliseconds, so 1 s is a wide margin for a loaded machine.
    expect(Date.now() - started).toBeLessThan(1000);
    expect(upstream.requests).toHaveLength(0);
    await after.close();
  });

  it('applies a preview made before the restart once, and keeps an applied one used', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'toolhost-restart-'));
    const before = await writeHost(upstream.url, {}, onDisk(dataDir));
    const kept = (await before.previewToolCall('WriteApi.UpdateThing', update())) as {
      preview: RequestPreview;
    };
    const used = (await before.previewToolCall('WriteApi.UpdateThing', update())) as {
      preview: RequestPreview;
    };
    expect((await before.applyPreview(used.preview.preview_id)).ok).toBe(true);
    await before.close();

    const after = await writeHost(upstream.url, {}, onDisk(dataDir));
    expect(code(await after.applyPreview(used.preview.preview_id))).toBe('preview_used');
    expect((await after.applyPreview(kept.preview.preview_id)).ok).toBe(true);
    expect(code(await after.applyPreview(kept.preview.preview_id))).toBe('preview_used');
    expect(upstream.requests).toHaveLength(2);
    await after.close();
  });

  it("keeps records in memory beside an embedder's own token store, and without TOOLHOST_TOKEN_KEY", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'toolhost-restart-'));
    const given = await createHost(
      { toolSets: { WriteApi: { baseUrl: upstream.url } } },
      {
        plugins: [inlinePlugin('WriteApi', writeTools)],
        env: { WRITE_KEY, ...onDisk(dataDir) },
        tokenStore: new MemoryTokenStore(),
      },
    );
    await given.callTool('WriteApi.UpdateThing', update(), { idempotencyKey: 'k-given' });
    await given.close();
    const keyless = await writeHost(upstream.url, {}, { TOOLHOST_DATA_DIR: dataDir });
    await keyless.callTool('WriteApi.UpdateThing', update(), { idempotencyKey: 'k-keyless' });
    await keyless.close();
    expect(readdirSync(dataDir)).toEqual([]);
    expect(upstream.requests).toHaveLength(2);
  });
});
