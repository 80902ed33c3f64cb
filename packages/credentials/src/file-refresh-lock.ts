import { createHash } from 'node:crypto';
import type { RefreshLock, RefreshLockRelease } from '@toolhost/redis-store';
import { createLockFile, readLockFile, removeStaleLockFile } from './lock-files.js';

/**
 * One token refresh per provider and user across the processes sharing a token file (hosts on
 * one data directory, the CLI beside a host), as the Redis lock is across replicas: without it
 * two of them send one refresh token at once, which a vendor that rotates them takes for a
 * stolen token, or one takes the other's refresh under way for one never answered and deletes
 * the token. A lock file beside the token file (lock-files.ts), its time renewed every third of
 * `ttlMs` while its holder works; one whose holder died is taken over once `ttlMs` passed (by
 * its age, not a pid: one from another container names nothing here), and its holder, if it
 * only stood still that long, learns it (`held`) before it sends the refresh token. A failed
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

  async acquire(providerId: string, userId: string): Promise<RefreshLockRelease | undefined> {
    const path = this.path(providerId, userId);
    let held = await createLockFile(path, String(process.pid), this.ttlMs);
    if (!held) {
      const found = readLockFile(path);
      if (!found || Date.now() - found.since <= this.ttlMs) return undefined;
      await removeStaleLockFile(path, found);
      held = await createLockFile(path, String(process.pid), this.ttlMs);
      if (!held) return undefined;
    }
    const lock = held;
    lock.keepFresh(this.ttlMs / 3);
    return Object.assign(() => lock.release(), { held: () => lock.stillHeld() });
  }
}
