import { createHash, randomBytes } from 'node:crypto';
import { utimes } from 'node:fs/promises';
import type { RefreshLock } from '@toolhost/redis-store';
import { createLockFile, readLockFile, removeOwnLockFile, removeStaleLockFile } from './lock-files.js';

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
    if (!(await createLockFile(path, mine))) {
      const held = readLockFile(path);
      if (held && Date.now() - held.since <= this.ttlMs) return undefined;
      if (held) await removeStaleLockFile(path, held.content);
      if (!(await createLockFile(path, mine))) return undefined;
    }
    const alive = setInterval(() => {
      const now = new Date();
      utimes(path, now, now).catch(() => {});
    }, this.ttlMs / 3);
    alive.unref();
    return async () => {
      clearInterval(alive);
      await removeOwnLockFile(path, mine);
    };
  }
}
