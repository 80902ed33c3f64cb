import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileLock } from '@toolhost/credentials';
import { describe, expect, it } from 'vitest';
import { type FileStateLock, FileStateStore } from '../src/index.js';
import { authorizedCode, registerPublicClient, startAuthorizationServer, tokenRequest } from './support.js';

const REDIRECT = 'http://127.0.0.1:7777/callback';

type Obstacle = 'lock' | 'disk';

/**
 * What keeps a host from writing its state file, from its `n`th change on until `end`: another
 * host holding the lock past this one's wait (300 ms), or the disk full (each write's temporary
 * file opens as /dev/full, where writing fails with ENOSPC, in the kernel).
 */
class Obstruction {
  full = false;
  private left = Number.POSITIVE_INFINITY;
  private obstacle: Obstacle = 'lock';
  private release = () => {};
  private held: Promise<unknown> = Promise.resolve();

  constructor(private readonly path: string) {}

  /** The lock this host takes for each change: the other host's taken first from the `n`th. */
  readonly lock = (at: string): FileStateLock => {
    const own = new FileLock(at, 300);
    return {
      run: async (work) => {
        this.left -= 1;
        if (this.left === 0) await this.begin();
        return own.run(work);
      },
    };
  };

  from(n: number, obstacle: Obstacle): void {
    this.left = n;
    this.obstacle = obstacle;
  }

  async end(): Promise<void> {
    this.left = Number.POSITIVE_INFINITY;
    this.full = false;
    this.release();
    await this.held;
  }

  private async begin(): Promise<void> {
    if (this.obstacle === 'disk') {
      this.full = true;
      return;
    }
    // Another host (another lock on the file) takes it, and keeps it until `end`.
    await new Promise<void>((taken) => {
      this.held = new FileLock(`${this.path}.lock`).run(() => {
        taken();
        return new Promise<void>((resolve) => (this.release = resolve));
      });
    });
  }
}

/** The file store as the host opens it, its writes failing while its disk is full. */
class OnDisk extends FileStateStore {
  constructor(
    private readonly file: string,
    private readonly obstruction: Obstruction,
  ) {
    super(file, { lock: obstruction.lock });
  }

  protected override write(text: string, beforeReplace: () => void): Promise<void> {
    if (this.obstruction.full) symlinkSync('/dev/full', `${this.file}.${process.pid}.tmp`);
    return super.write(text, beforeReplace);
  }
}

interface Tokens {
  refresh_token: string;
}

/**
 * A presentation with the file obstructed from its `n`th change on: answered, or failed for
 * the client to try again; then, the file free again, the client's retry is answered.
 */
async function answeredOrRetried(
  obstruction: Obstruction,
  n: number,
  obstacle: Obstacle,
  present: () => Promise<Response>,
): Promise<Tokens> {
  obstruction.from(n, obstacle);
  const first = await present();
  const told = await first.text();
  await obstruction.end();
  if (first.status === 200) return JSON.parse(told) as Tokens;
  // What the test server answers a failure handed to the embedder (the host: 503 temporarily_unavailable).
  expect([first.status, told]).toEqual([500, expect.stringContaining('try again shortly')]);
  const retried = await present();
  expect([retried.status, n], await retried.clone().text()).toEqual([200, n]);
  return (await retried.json()) as Tokens;
}

// Whichever write of a presentation fails, the client's retry is no replay: it was told to try
// again, and nothing it was handed is lost. A replay after an answer still revokes.
describe('a code or refresh token presented while its state file cannot be written', () => {
  for (const obstacle of ['lock', 'disk'] as const)
    it(`(${obstacle === 'lock' ? 'its lock held by another host' : 'its disk full'}) works on the retry, and a replay still revokes`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'as-presentations-'));
      const path = join(dir, 'authorization-server.json');
      const obstruction = new Obstruction(path);
      const server = await startAuthorizationServer({ store: new OnDisk(path, obstruction) });
      try {
        const clientId = await registerPublicClient(server.issuer, REDIRECT);
        const refresh = (token: string) => () =>
          tokenRequest(server.issuer, {
            grant_type: 'refresh_token',
            refresh_token: token,
            client_id: clientId,
          });
        for (let n = 1; n <= 4; n++) {
          const { code, verifier } = await authorizedCode(server.issuer, clientId, REDIRECT);
          const redeem = () =>
            tokenRequest(server.issuer, {
              grant_type: 'authorization_code',
              code,
              code_verifier: verifier,
              client_id: clientId,
              redirect_uri: REDIRECT,
            });
          const issued = await answeredOrRetried(obstruction, n, obstacle, redeem);
          const rotated = await answeredOrRetried(obstruction, n, obstacle, refresh(issued.refresh_token));
          // The grant stands: its new refresh token refreshes.
          const latest = await refresh(rotated.refresh_token)();
          expect(latest.status).toBe(200);
          const { refresh_token } = (await latest.json()) as Tokens;
          // The spent one presented again is reuse: the grant goes, its latest token with it.
          expect((await refresh(issued.refresh_token)()).status).toBe(400);
          expect((await refresh(refresh_token)()).status).toBe(400);
          expect((await redeem()).status).toBe(400);
        }
      } finally {
        await obstruction.end();
        await server.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }, 60_000);
});
