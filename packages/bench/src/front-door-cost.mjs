// pnpm -F @toolhost/bench bench:front-door [-- --quick]
//
// The CPU a tool call costs the host over Streamable HTTP when its caller presents a JWT access
// token from an identity provider (checked against the provider's JWKS, the validation cached)
// and when it presents an operator's static access token: the same host, the same call, the
// same loopback upstream, two processes side by side. The target: the JWT path within 10 % of
// the static one. A loopback issuer serves the OpenID metadata and JWKS. Prints a table;
// asserts nothing.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import * as jose from 'jose';
import { load, processCpuMs, summarize } from './measure.mjs';
import { freePort, SCRATCH_DIR, track } from './processes.mjs';
import { hostOptions, startUpstream } from './subjects.mjs';

const require = createRequire(import.meta.url);
const HOST_DIR = dirname(require.resolve('@toolhost/host/package.json'));
const HOST_CLI = join(HOST_DIR, 'dist', 'cli.js');
const QUICK = process.argv.includes('--quick');
const CALLS = QUICK ? 600 : 3000;
const ROUNDS = QUICK ? 2 : 5;
const STATIC_TOKEN = 'bench-static-access-token-0123456789';
const CALL = {
  name: 'CrmEventsApi_RetrieveCustomEventDefinitions',
  arguments: { results_per_page_limit: 10 },
};

/** A loopback issuer: OpenID metadata and a JWKS of one ES256 key; signs access tokens. */
async function startIssuer() {
  const { privateKey, publicKey } = await jose.generateKeyPair('ES256');
  const jwk = { ...(await jose.exportJWK(publicKey)), kid: 'bench-1', alg: 'ES256', use: 'sig' };
  const server = createServer((req, res) => {
    const body =
      req.url === '/jwks'
        ? { keys: [jwk] }
        : {
            issuer,
            jwks_uri: `${issuer}/jwks`,
            authorization_endpoint: `${issuer}/authorize`,
            token_endpoint: `${issuer}/token`,
          };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const issuer = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
  return {
    issuer,
    /** @param {string} audience */
    sign: (audience) =>
      new jose.SignJWT({ scope: 'tools:read tools:write', client_id: 'bench-client' })
        .setProtectedHeader({ alg: 'ES256', kid: 'bench-1', typ: 'at+jwt' })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject('bench-user')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(privateKey),
    close: () => server.close(),
  };
}

/**
 * A host over HTTP with both doors open (the static token and the issuer), connected with the
 * given bearer token.
 * @param {string} upstream
 * @param {string} issuer
 * @param {(resource: string) => Promise<string>} tokenFor
 */
async function hostWith(upstream, issuer, tokenFor) {
  const port = await freePort();
  const dir = mkdtempSync(join(SCRATCH_DIR, 'front-door-'));
  const config = join(dir, 'toolhost.config.json');
  const options = hostOptions(upstream, ['@toolhost/plugin-crm-events']);
  writeFileSync(config, JSON.stringify({ ...options, http: { authorization: { issuer } } }));
  const child = track(
    spawn(process.execPath, [HOST_CLI, '--config', config, 'serve', '--http', String(port)], {
      env: { ...process.env, TOOLHOST_ACCESS_TOKENS: `robot:${STATIC_TOKEN}`, TOOLHOST_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  const token = await tokenFor(url.href);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const client = new Client({ name: 'front-door-bench', version: '0' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(url, {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      return { client, pid: child.pid, close: () => client.close().finally(() => child.kill()) };
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function main() {
  const upstream = await startUpstream();
  const issuer = await startIssuer();
  const subjects = {
    'static access token': await hostWith(upstream.url, issuer.issuer, async () => STATIC_TOKEN),
    'JWT from the IdP (JWKS, cached)': await hostWith(upstream.url, issuer.issuer, issuer.sign),
  };
  /** @type {Record<string, ReturnType<typeof summarize>>} */
  const results = {};
  try {
    for (const s of Object.values(subjects)) {
      const call = async () => {
        const r = await s.client.callTool(CALL);
        if (r.isError) throw new Error(JSON.stringify(r.content).slice(0, 200));
      };
      await load(call, { total: 200, concurrency: 4 });
    }
    // Rounds alternate between the two, so that the machine's drift falls on both alike.
    /** @type {Record<string, import('./measure.mjs').Samples[]>} */
    const samples = Object.fromEntries(Object.keys(subjects).map((k) => [k, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [label, s] of Object.entries(subjects)) {
        const call = () => s.client.callTool(CALL);
        samples[label]?.push(
          await load(call, { total: CALLS, concurrency: 8, cpu: () => processCpuMs(s.pid) }),
        );
      }
    }
    for (const [label, list] of Object.entries(samples)) results[label] = summarize(8, list);
  } finally {
    for (const s of Object.values(subjects)) await s.close();
    issuer.close();
    upstream.close();
  }
  const [base, jwt] = Object.values(results);
  console.log('\nHTTP CPU per tool call, by how the caller signs in (8 concurrent, host process CPU)\n');
  console.log('| caller | calls | p50 ms | p99 ms | CPU µs/call | vs static |');
  console.log('|---|---|---|---|---|---|');
  for (const [label, r] of Object.entries(results)) {
    const ratio =
      base?.cpuUsPerCall && r.cpuUsPerCall
        ? `${((r.cpuUsPerCall / base.cpuUsPerCall - 1) * 100).toFixed(1)} %`
        : 'n/a';
    console.log(`| ${label} | ${r.calls} | ${r.p50} | ${r.p99} | ${r.cpuUsPerCall} | ${ratio} |`);
  }
  if (base?.cpuUsPerCall && jwt?.cpuUsPerCall) {
    const over = (jwt.cpuUsPerCall / base.cpuUsPerCall - 1) * 100;
    console.log(
      `\nTarget: the JWT path within 10 % of the static one: ${over <= 10 ? 'met' : 'NOT met'} (${over.toFixed(1)} %).`,
    );
  }
  process.exit(0);
}

await main();
