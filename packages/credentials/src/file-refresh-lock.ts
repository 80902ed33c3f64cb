import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { open, unlink, utimes } from 'node:fs/promises';
import type { RefreshLock } from '@toolhost/redis-store';

/**
 * One token refresh per provider and user across the processes sharing a token file (hosts on
 * one data directory, the CLI beside a host), as the Redis lock is across replicas: without it
 * two of them send one refresh token at once, which a vendor that rotates them takes for a
 * stolen token, or one takes the other's refresh under way for one never answered and deletes
 * the token. A lock file beside the token file, created exclusively, its time renewed every
 * third of `ttlMs` while its holder works; one whose holder died is taken over once `ttlMs`
 * passed (by its age, not a pid: one from another container names nothing here). A failed
 * refresh needs no mark here, unlike Redis's: the token's own (`refreshSentAt`) is in the same
 * file, read by the next holder before it sends anything.
 */
export class FileRefreshLock implements RefreshLock {
  constructor(
    /** The token file the lock files go beside. */
    private readonly file: string,
    readonly ttlMs = 30_000,
  ) {}

  private path(providerId: string, userId: string): string {
    const digest = createHash('sha256').update(`${providerId}\0${userId}`).digest('hex').slice(0, 32);
    return `${this.file}.refresh-${digest}.lock`;
  }

  async acquire(
    providerId: string,
    userId: string,
  ): Promise<((outcome?: { failed?: boolean }) => Promise<void>) | undefined> {
    const path = this.path(providerId, userId);
    const mine = randomBytes(16).toString('hex');
    if (!(await create(path, mine))) {
      if (!this.stale(path)) return undefined;
      await unlink(path).catch(() => {});
      if (!(await create(path, mine))) return undefined;
    }
    const alive = setInterval(() => {
      const now = new Date();
      utimes(path, now, now).catch(() => {});
    }, this.ttlMs / 3);
    alive.unref();
    return async () => {
      clearInterval(alive);
      if (holder(path)?.content === mine) await unlink(path).catch(() => {});
    };
  }

  /** Left by a holder that died: not renewed within `ttlMs`. */
  private stale(path: string): boolean {
    const held = holder(path);
    return !held || Date.now() - held.since > this.ttlMs;
  }
}

/** Makes the lock file, holding `mine`; false where it exists. */
async function create(path: string, mine: string): Promise<boolean> {
  try {
    const handle = await open(path, 'wx', 0o600);
    try {
      await handle.writeFile(mine);
    } finally {
      await handle.close();
    }
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

function holder(path: string): { content: string; since: number } | undefined {
  try {
    return { content: readFileSync(path, 'utf8'), since: statSync(path).mtimeMs };
  } catch {
    return undefined;
  }
}
