import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { IDEMPOTENCY_META_KEY } from '../src/mcp/tool-calls.js';
import { type HttpHostProcess, spawnHttpHost } from './support.js';

// A host as a container runs it: PID 1 of its own PID namespace (unshare, as root). The owner
// file of its write records names pid 1; a host restarted in a new namespace is pid 1 again,
// and a second container on the same volume is pid 1 too: only a check that sees across
// namespaces tells the dead owner from the live one.
const TOKEN_KEY = 'token-encryption-key-for-pid-one';
const PID_ONE = ['unshare', '--pid', '--fork', '--kill-child', '--mount-proc'];

let upstream: RecordingUpstream;
let dataDir: string;
const hosts: HttpHostProcess[] = [];
const clients: Client[] = [];

function canUnshare(): boolean {
  try {
    return (
      execFileSync('unshare', ['--pid', '--fork', '--mount-proc', 'sh', '-c', 'echo $$'], {
        encoding: 'utf8',
      }).trim() === '1'
    );
  } catch {
    return false;
  }
}

async function hostAsPidOne(): Promise<{ host: HttpHostProcess; client: Client }> {
  const host = await spawnHttpHost(
    { plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } },
    { TOOLHOST_TOKEN_KEY: TOKEN_KEY, TOOLHOST_DATA_DIR: dataDir, ECHO_KEY: 'echo-key-0123456789' },
    [],
    PID_ONE,
  );
  hosts.push(host);
  const client = new Client({ name: 'pid-one', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(host.url)));
  clients.push(client);
  return { host, client };
}

const keyed = (client: Client, key: string) =>
  client.callTool({
    name: 'EchoApi_CreateItem',
    arguments: { mode: 'execute', request_body: JSON.stringify({ name: 'thing' }) },
    _meta: { [IDEMPOTENCY_META_KEY]: key },
  }) as Promise<{ isError?: boolean; content: { type: string; text?: string }[] }>;

const text = (r: { content: { text?: string }[] }) => r.content.map((c) => c.text ?? '').join('');

beforeAll(async () => {
  upstream = await startRecordingUpstream(() => ({ status: 201, body: { id: 'item-1' } }));
  dataDir = mkdtempSync(join(tmpdir(), 'toolhost-pid-one-'));
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  for (const h of hosts) {
    h.child.kill('SIGKILL');
    await h.exited;
  }
  await upstream?.close();
});

describe.runIf(canUnshare())('write records of a host that is PID 1 (a PID namespace)', () => {
  it('are its own again after a restart as PID 1, and still refused to a second live PID 1 on the volume', async () => {
    const first = await hostAsPidOne();
    expect((await keyed(first.client, 'before-restart')).isError).toBeFalsy();
    expect(upstream.requests).toHaveLength(1);

    // A second container on the same volume while the first lives: refused, nothing sent.
    const second = await hostAsPidOne();
    const refused = await keyed(second.client, 'from-the-second');
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('is in use by another toolhost (process 1)');
    expect(upstream.requests).toHaveLength(1);
    await second.client.close();
    // unshare ignores SIGTERM while it waits for its child: SIGKILL, and --kill-child ends the host.
    second.host.child.kill('SIGKILL');
    await second.host.exited;

    // The first dies without a word (OOM kill), and comes back as PID 1 of a new namespace.
    first.host.child.kill('SIGKILL');
    await first.host.exited;
    const restarted = await hostAsPidOne();
    const fresh = await keyed(restarted.client, 'after-restart');
    expect(text(fresh)).not.toContain('store_unavailable');
    expect(fresh.isError).toBeFalsy();
    expect(upstream.requests).toHaveLength(2);
    // The key used before the restart answers its stored outcome, and sends nothing.
    expect((await keyed(restarted.client, 'before-restart')).isError).toBeFalsy();
    expect(upstream.requests).toHaveLength(2);
  }, 90_000);
});
