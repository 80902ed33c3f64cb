import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { FileRecords } from '@toolhost/write-safety';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { IDEMPOTENCY_META_KEY } from '../src/mcp/tool-calls.js';
import { type HttpHostProcess, spawnHttpHost, startEventLoopHold } from './support.js';

// The write-records file near its bounds (8,000 records, 40 MB): a user's keyed writes up to
// their bound, and the one refused beyond it, each append a few lines to it, while /healthz
// keeps answering. The file written whole at each change held the event loop ~1 s a change.
// The hold is the host's own (startEventLoopHold: its longest event-loop delay, read inside it,
// less its waits for a CPU), not the probes' round trips, which a machine loaded by other work
// stretches (test process, host, scheduler) with the host's loop free.
const TOKEN_KEY = 'token-encryption-key-for-journal';
const RECORDS = 8000;

let upstream: RecordingUpstream;
let host: HttpHostProcess;
let dataDir: string;
let client: Client;

beforeAll(async () => {
  upstream = await startRecordingUpstream(() => ({ status: 201, body: { id: 'item-1' } }));
  dataDir = mkdtempSync(join(tmpdir(), 'toolhost-journal-'));
  const filled = FileRecords.inDirectory(dataDir, TOKEN_KEY, { maxRecords: RECORDS + 1 });
  const value = 'v'.repeat(5000);
  await Promise.all(
    Array.from({ length: RECORDS }, (_, i) => filled.put(`idempotency:other-${i}`, value, 3_600_000)),
  );
  await filled.flush();
  host = await spawnHttpHost(
    {
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl: upstream.url } },
      tools: { idempotencyKeysPerUser: 20 },
    },
    { TOOLHOST_TOKEN_KEY: TOKEN_KEY, TOOLHOST_DATA_DIR: dataDir, ECHO_KEY: 'echo-key-0123456789' },
  );
  client = new Client({ name: 'journal', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(host.url)));
}, 120_000);
afterAll(async () => {
  await client?.close().catch(() => {});
  host?.child.kill('SIGTERM');
  await host?.exited;
  await upstream?.close();
});

describe('write records in a journal (encrypted file store)', () => {
  it('appends each change of a user at their bound to the full file, /healthz answering meanwhile', async () => {
    const file = join(dataDir, 'write-records.enc.jsonl');
    const keyed = (key: string) =>
      client.callTool({
        name: 'EchoApi_CreateItem',
        arguments: { mode: 'execute', request_body: JSON.stringify({ name: 'thing' }) },
        _meta: { [IDEMPOTENCY_META_KEY]: key },
      });
    // What the first call loads (the HTTP client) is not what this measures.
    await keyed('warm-up');
    const before = readFileSync(file);
    const inode = statSync(file).ino;

    let slowest = 0;
    let rounds = 0;
    let running = true;
    const held = await startEventLoopHold(host);
    const probe = (async () => {
      const healthz = new URL('/healthz', host.url);
      while (running) {
        const started = performance.now();
        const res = await fetch(healthz);
        await res.text();
        expect(res.status).toBe(200);
        slowest = Math.max(slowest, performance.now() - started);
        rounds += 1;
      }
    })();
    const outcomes = [];
    for (let i = 0; i < 20; i += 1) outcomes.push(await keyed(`k-${i}`));
    running = false;
    await probe;
    const { delay, share, hold } = await held();

    expect(outcomes.filter((o) => !o.isError)).toHaveLength(19);
    const refused = outcomes.at(-1)!;
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('tools.idempotencyKeysPerUser');
    expect(upstream.requests).toHaveLength(20);

    // Appended: the file is the same one, its earlier bytes untouched, grown by a few lines a call.
    const after = readFileSync(file);
    expect(statSync(file).ino).toBe(inode);
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect(after.length - before.length).toBeLessThan(20 * 10_000);
    expect(before.length).toBeGreaterThan(RECORDS * 5000);
    // Half what a whole-file write of this file holds the loop (over a second).
    expect(rounds, '/healthz answered while the calls ran').toBeGreaterThan(0);
    expect(
      hold,
      `the host's longest hold on its event loop, s (a delay of ${delay} s at ${share.toFixed(2)} of its runnable time on a CPU; slowest /healthz round trip ${Math.round(slowest)} ms)`,
    ).toBeLessThan(0.5);
  }, 120_000);
});
