import { createServer, type Server } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { hostCliPath } from '../../testing/src/spawn-host.js';
import { cli, fixtureApp, type HttpHostProcess, spawnHttpHost } from './support.js';

let upstream: RecordingUpstream;
let taken: Server;
let takenPort: number;
beforeAll(async () => {
  upstream = await startRecordingUpstream();
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  takenPort = (taken.address() as { port: number }).port;
});
afterAll(async () => {
  await upstream.close();
  await new Promise((resolve) => taken.close(resolve));
});

describe('serve refuses what it cannot do, saying why', () => {
  it('refuses --stdio with --http instead of silently serving stdio', async () => {
    const r = await cli(['--plugins', 'toolhost-plugin-echo', 'serve', '--stdio', '--http', '0']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("option '--stdio' cannot be used with option '--http [port]'");
  });

  it('names a port in use and how to choose another, from --http or TOOLHOST_PORT', async () => {
    const expected = `Port ${takenPort} on 127.0.0.1 is in use (another toolhost, or another server): stop that server, or choose another port with --http <port>, TOOLHOST_PORT or http.port`;
    const flag = await cli(['--plugins', 'toolhost-plugin-echo', 'serve', '--http', String(takenPort)]);
    expect(flag.code).toBe(1);
    expect(flag.stderr).toContain(expected);
    expect(flag.stderr).not.toContain('EADDRINUSE');
    const env = await cli(['--plugins', 'toolhost-plugin-echo', 'serve', '--http'], {
      TOOLHOST_PORT: String(takenPort),
    });
    expect(env.code).toBe(1);
    expect(env.stderr).toContain(expected);
  });

  it('tells an MCP client over stdio what is wrong with the config, not "Connection closed"', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        hostCliPath(),
        '--plugins',
        'toolhost-plugin-echo',
        '--tool-sets',
        'EchoAPI',
        'serve',
        '--stdio',
      ],
      cwd: fixtureApp,
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'misconfigured', version: '0' });
    const refused = await client.connect(transport).then(
      () => undefined,
      (e: Error) => e,
    );
    await client.close();
    expect(refused?.message).toContain(
      "toolhost: tools.toolSets (--tool-sets, TOOLHOST_TOOL_SETS): 'EchoAPI' is not a loaded tool set",
    );
  });

  it('refuses a TOOLHOST_PORT that is not a port', async () => {
    const r = await cli(['--plugins', 'toolhost-plugin-echo', 'list'], { TOOLHOST_PORT: '80a' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("TOOLHOST_PORT is '80a'; expected a port number 0-65535");
  });
});

describe('a served host seen from a browser', () => {
  let served: HttpHostProcess;
  beforeAll(async () => {
    served = await spawnHttpHost({
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl: upstream.url } },
    });
  });
  afterAll(async () => {
    served.child.kill('SIGTERM');
    await served.exited;
  });

  it('answers GET / with a small page naming the MCP endpoint and the tools', async () => {
    const res = await fetch(new URL('/', served.url));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    expect(html).toContain(`<code>${served.url}</code>`);
    expect(html).toContain('3 tools in 1 tool set: EchoApi.');
    expect(html).toContain('href="/healthz"');
  });

  it('counts in /healthz the tools the start log counts', async () => {
    const logged = /"tools":(\d+)[^\n]*"msg":"listening"/.exec(served.logs());
    expect(logged).not.toBeNull();
    const health = (await (await fetch(new URL('/healthz', served.url))).json()) as { tools: number };
    expect(health.tools).toBe(Number(logged![1]));
    expect(health.tools).toBe(3);
  });
});
