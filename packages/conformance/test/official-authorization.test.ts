import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostCliPath } from '@toolhost/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The official conformance suite's authorization-server command against the host's own
// authorization server, started from the docs' quick try (examples/front-door, nothing else
// set), both scenarios: the metadata endpoint, and the authorization code grant, whose
// browser step (consent, as the local user) this test plays while the suite waits at its
// loopback callback.
const require = createRequire(import.meta.url);
/** The suite reads files with `fs.globSync` (Node 22); the npm `node` package brings one. */
const node22 = join(dirname(require.resolve('node22/package.json')), 'bin', 'node');
const suiteCli = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist',
  'index.js',
);

const config = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'examples',
  'front-door',
  'toolhost.config.json',
);

let child: ChildProcess;
let mcpUrl: string;
let issuer: string;

beforeAll(async () => {
  child = spawn(process.execPath, [hostCliPath(), '--config', config, 'serve', '--http', '0'], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let logs = '';
  mcpUrl = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      logs += c.toString();
      const m = /"url":"([^"]+)"/.exec(logs);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`host exited ${code}: ${logs}`)));
  });
  issuer = new URL(mcpUrl).origin;
});
afterAll(() => {
  child?.kill('SIGTERM');
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The browser at the consent page: opens the authorization URL, keeps the cookie, allows. */
async function consent(authorizationUrl: string, signal: AbortSignal): Promise<void> {
  const cookies = new Map<string, string>();
  const go = async (url: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (cookies.size) headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual', signal });
    for (const line of res.headers.getSetCookie()) {
      const [name, value] = line.split(';')[0]!.split('=');
      cookies.set(name!, value!);
    }
    return res;
  };
  const authorized = await go(authorizationUrl);
  expect(authorized.status).toBe(303);
  const page = await (await go(new URL(authorized.headers.get('location')!, issuer).href)).text();
  const action = /<form[^>]*action="([^"]*)"/.exec(page)?.[1];
  if (!action) throw new Error(`no consent form: ${page.slice(0, 500)}`);
  const fields = Object.fromEntries(
    [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
  );
  const allowed = await go(action.replace(/&amp;/g, '&'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: issuer },
    body: new URLSearchParams({ ...fields, decision: 'allow' }).toString(),
  });
  expect(allowed.status).toBe(303);
  // The redirect to the suite's callback, which records the authorization response.
  await fetch(allowed.headers.get('location')!, { signal });
}

/** One run of the suite's authorization command, with the browser step played at its callback. */
async function authorizationRun(): Promise<{ code: number | null; output: string; portTaken: boolean }> {
  const port = await freePort();
  const registered = await fetch(`${issuer}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: [`http://127.0.0.1:${port}/callback`],
      token_endpoint_auth_method: 'none',
      client_name: 'MCP conformance suite',
    }),
  });
  expect(registered.status).toBe(201);
  const { client_id } = (await registered.json()) as { client_id: string };
  const out = mkdtempSync(join(tmpdir(), 'toolhost-official-as-results-'));
  const suite = spawn(
    node22,
    [suiteCli, 'authorization', '--url', issuer, '--client-id', client_id, '--resource', mcpUrl].concat([
      '-p',
      String(port),
      '-o',
      out,
    ]),
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  let browserStep: Promise<void> | undefined;
  // A browser step that fails ends the suite (else it waits at its callback until the test's
  // timeout) and is the test's failure, with what went wrong; a suite that ends stops the step.
  let browserFailure: unknown;
  const browser = new AbortController();
  const read = (c: Buffer) => {
    output += c.toString();
    // The suite prints the link before its callback server listens (the bind is asynchronous):
    // the browser goes once both are there. The link whole: a pipe may cut a line in two.
    const link = /^(http:\/\/\S+\/auth\/authorize\?\S+)\r?\n/m.exec(output)?.[1];
    const listening = output.includes(`Callback server started: http://127.0.0.1:${port}`);
    if (link && listening && !browserStep)
      browserStep = consent(link, browser.signal).catch((e: unknown) => {
        browserFailure = e;
        // A suite that could not listen ends by itself, its results saying why (a port taken):
        // given a moment to write them before it is stopped.
        setTimeout(() => suite.kill(), 5000).unref();
      });
  };
  suite.stderr!.on('data', read);
  suite.stdout!.on('data', read);
  const code = await new Promise<number | null>((resolve) => suite.once('exit', resolve));
  browser.abort();
  await browserStep;
  // The suite says "started" whether or not its listen succeeded, and keeps the error in its
  // results: a port taken is found there.
  const results = readdirSync(out, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'));
  const portTaken = results.some((f) => readFileSync(join(out, f), 'utf8').includes('EADDRINUSE'));
  if (portTaken) return { code, output, portTaken };
  if (browserFailure) throw browserFailure;
  expect(browserStep, output).toBeDefined();
  return { code, output, portTaken };
}

describe('the official conformance suite against the host authorization server', () => {
  it("is the docs' quick try: the resource names this server, and a call without a token is challenged", async () => {
    const resource = (await (await fetch(`${issuer}/.well-known/oauth-protected-resource/mcp`)).json()) as {
      resource: string;
      authorization_servers: string[];
    };
    expect(resource).toMatchObject({ resource: mcpUrl, authorization_servers: [issuer] });
    const call = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(call.status).toBe(401);
    expect(call.headers.get('www-authenticate')).toContain(
      `resource_metadata="${issuer}/.well-known/oauth-protected-resource/mcp"`,
    );
    const metadata = (await (
      await fetch(`${issuer}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
    });
  });

  it('passes the metadata and the authorization code grant scenarios', async () => {
    // The suite's callback port is picked free here and bound by the suite a moment later; on a
    // busy machine another process (an outgoing connection's ephemeral port) can take it between,
    // and the suite then cannot listen. That run proves nothing about the host: pick again.
    let run = await authorizationRun();
    for (let attempt = 1; attempt < 3 && run.portTaken; attempt++) run = await authorizationRun();
    const { code, output } = run;
    expect(output, output).toMatch(/✓ authorization-server-metadata-endpoint: 2 passed, 0 failed/);
    expect(output, output).toMatch(/✓ authorization-code-grant: 1 passed, 0 failed/);
    expect(output, output).toMatch(/Total: 3 passed, 0 failed/);
    expect(code, output).toBe(0);
  });
});
