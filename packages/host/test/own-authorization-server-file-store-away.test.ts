import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileLock } from '@toolhost/credentials';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostConfig } from '../src/config/host-config.js';
import {
  consentWithAccessToken,
  redeemCode,
  registerPublicClient,
  TEST_REDIRECT,
  tokenRequest,
} from './own-authorization-flow.js';
import {
  ALICE_ACCESS_TOKEN as ALICE,
  type HttpHostProcess,
  postInitialize,
  spawnHttpHost,
} from './support.js';

// The host's own authorization server keeping its state in a file (no Redis), while that file
// cannot be written (the disk full) or read, or its lock is held by another host: each answer
// is 503 temporarily_unavailable, as with Redis away (own-authorization-server-store-away), never
// a 500, nor an invalid_client or invalid_grant that would have the client drop its tokens. The
// host is spawned: the disk is filled for its process alone (prlimit: no file of it may grow,
// so its writes fail in the kernel, EFBIG, as ENOSPC on a full disk), at any uid.

let host: HttpHostProcess;
let origin: string;
let dataDir: string;
const stateFile = () => join(dataDir, 'authorization-server.json');

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'toolhost-as-file-away-'));
  const config: HostConfig = {
    plugins: ['toolhost-plugin-echo'],
    toolSets: { EchoApi: { baseUrl: 'http://127.0.0.1:9' } },
    http: { authorization: { mode: 'host' } },
  };
  host = await spawnHttpHost(config, {
    ECHO_AUTH_TOKEN: 'static-token-x',
    TOOLHOST_TOKEN_KEY: 'token-encryption-key-for-file-away',
    TOOLHOST_DATA_DIR: dataDir,
    TOOLHOST_ACCESS_TOKENS: `alice:${ALICE}`,
  });
  origin = new URL(host.url).origin;
}, 60_000);
afterAll(async () => {
  host?.child.kill('SIGTERM');
  await host?.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

/** The largest file the host may write (its soft RLIMIT_FSIZE, as prlimit(1) prints it). */
const hostFileSize = () =>
  execFileSync('prlimit', ['--pid', String(host.child.pid), '--fsize', '--output', 'SOFT', '--noheadings'])
    .toString()
    .trim();

/**
 * Sets it: 0 fills the host's disk, what it was empties it again (not `unlimited`: a hard
 * limit below that refuses it, and the host's disk would stay full for the tests after).
 */
const setHostFileSize = (soft: string) =>
  execFileSync('prlimit', ['--pid', String(host.child.pid), `--fsize=${soft}:`]);

const hasPrlimit = (() => {
  try {
    execFileSync('prlimit', ['--version']);
    return true;
  } catch {
    return false;
  }
})();

/** A client registered, alice's consent, the code redeemed: its id and tokens. */
async function signedIn() {
  const clientId = await registerPublicClient(origin);
  const { landed, verifier } = await consentWithAccessToken(origin, clientId, ALICE);
  const issued = await redeemCode(origin, clientId, landed, verifier);
  expect(issued.status).toBe(200);
  const tokens = (await issued.json()) as { access_token: string; refresh_token: string };
  const refresh = () =>
    tokenRequest(origin, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
  const revoke = () =>
    fetch(`${origin}/auth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token, client_id: clientId }).toString(),
    });
  return { clientId, ...tokens, refresh, revoke };
}

const register = () =>
  fetch(`${origin}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [TEST_REDIRECT], token_endpoint_auth_method: 'none' }),
  });

const authorize = (clientId: string) =>
  fetch(
    `${origin}/auth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: TEST_REDIRECT, code_challenge: 'c'.repeat(43), code_challenge_method: 'S256' })}`,
    { redirect: 'manual' },
  );

/** Each answer as the client reads it. */
const read = (answers: Response[]) =>
  Promise.all(
    answers.map(async (r) => ({
      status: r.status,
      retryAfter: r.headers.get('retry-after'),
      body: await r.json(),
    })),
  );

const UNAVAILABLE = { status: 503, retryAfter: '1', body: { error: 'temporarily_unavailable' } };

/** What is in the data directory besides the state file: no temporary file, no lock left behind. */
const strays = () => readdirSync(dataDir).filter((f) => f.startsWith('authorization-server.json.'));

/** The host's log lines about its state file. */
const stateLog = () =>
  host
    .logs()
    .split('\n')
    .filter((l) => l.includes('its state file'))
    .map((l) => JSON.parse(l) as { level: number; msg: string; code?: string; file: string });

describe("the host's own authorization server with its state file away", () => {
  it.skipIf(!hasPrlimit)(
    'answers 503 while the disk is full, keeps the file whole, and the client goes on after',
    async () => {
      const alice = await signedIn();
      const before = readFileSync(stateFile(), 'utf8');
      const limit = hostFileSize();
      setHostFileSize('0');
      let answers: Awaited<ReturnType<typeof read>>;
      try {
        answers = await read([
          await alice.refresh(),
          await alice.revoke(),
          await register(),
          await authorize(alice.clientId),
        ]);
      } finally {
        setHostFileSize(limit);
      }
      for (const answer of answers) expect(answer).toMatchObject(UNAVAILABLE);
      expect(readFileSync(stateFile(), 'utf8')).toBe(before);
      expect(strays()).toEqual([]);
      // The operator is told once, naming the file and why; then that it writes again.
      const told = stateLog();
      expect(told[0]).toMatchObject({ level: 40, file: stateFile(), code: 'EFBIG' });
      expect(told[0]!.msg).toContain('503 temporarily_unavailable');
      expect(told.filter((l) => l.level === 40)).toHaveLength(1);

      // Nothing was spent: the same refresh token works, and registration is open again.
      expect((await alice.refresh()).status).toBe(200);
      expect((await register()).status).toBe(201);
      expect(stateLog().at(-1)).toMatchObject({ level: 30, file: stateFile() });
      expect(strays()).toEqual([]);
    },
  );

  it('answers 503 while another host holds the lock past its wait, and goes on once it lets go', async () => {
    const alice = await signedIn();
    // The other host: a live process of this pid space, as its lock file says. It holds the lock
    // before the requests leave: the host may still hold it a moment for the sign-in's writes.
    let release = () => {};
    let holding = () => {};
    const taken = new Promise<void>((r) => (holding = r));
    const held = new FileLock(`${stateFile()}.lock`).run(() => {
      holding();
      return new Promise<void>((r) => (release = r));
    });
    await taken;
    let answers: Awaited<ReturnType<typeof read>>;
    try {
      answers = await read(await Promise.all([alice.refresh(), register()]));
    } finally {
      release();
      await held;
    }
    for (const answer of answers) expect(answer).toMatchObject(UNAVAILABLE);
    expect((await alice.refresh()).status).toBe(200);
    expect(strays()).toEqual([]);
  });

  it('answers 503 while the file cannot be read, at the token endpoint and the MCP endpoint', async () => {
    const alice = await signedIn();
    // Something else in its place (a directory: reading it fails, at any uid).
    renameSync(stateFile(), `${stateFile()}.aside`);
    mkdirSync(stateFile());
    let answers: Awaited<ReturnType<typeof read>>;
    let mcp: Response;
    try {
      answers = await read([await alice.refresh()]);
      // Its grant never checked yet: the check reads the store, which cannot answer.
      mcp = await postInitialize(host.url, { token: alice.access_token });
    } finally {
      rmdirSync(stateFile());
      renameSync(`${stateFile()}.aside`, stateFile());
    }
    expect(answers[0]).toMatchObject(UNAVAILABLE);
    expect({ status: mcp.status, retryAfter: mcp.headers.get('retry-after') }).toEqual({
      status: 503,
      retryAfter: '5',
    });
    expect((await alice.refresh()).status).toBe(200);
    expect((await postInitialize(host.url, { token: alice.access_token })).status).toBe(200);
  });
});
