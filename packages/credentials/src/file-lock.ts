import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { TokenStoreError } from './credentials-error.js';
import { createLockFile, type HeldLock, PID_SPACE, readLockFile, removeStaleLockFile } from './lock-files.js';

/** Whether a process of that pid still runs here (EPERM: it runs, as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock files this process holds now (their contents), for a lock file naming this pid. */
const heldHere = new Set<string>();

/** A holder's write refused: the lock was taken over while it stood still (see lock-files.ts). */
class LockTakenOver extends TokenStoreError {}

/**
 * A lock shared by the processes writing one file (a host and the CLI, two hosts on one data
 * directory): a lock file (lock-files.ts) naming the holder's pid and where it means something
 * (PID_SPACE). One not renewed for `staleMs` is taken over, or sooner where its holder is known
 * dead: a pid of this pid space that no longer runs, or is this process's own while it holds no
 * such lock (a pid is unique in its space: an earlier process's leftover). A pid of another
 * space (another container or machine on a shared volume) names nothing here, so only the age
 * counts for it. The lock is renewed while held, so that only a holder that stopped (or stood
 * still that long) loses it; one that did is told before its write, which is then not made.
 */
export class FileLock {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly waitMs = 5_000,
    private readonly staleMs = 30_000,
  ) {}

  /**
   * Runs `work` holding the lock (in this process, one at a time). `work` calls `assertHeld`
   * just before its write becomes visible: it throws where the lock was taken over meanwhile,
   * and `work` is then run again, once, under the lock taken anew, so it must read what it
   * changes again (the file as the successor left it) rather than trust what it read before.
   */
  run<T>(work: (assertHeld: () => void) => Promise<T>): Promise<T> {
    const next = this.chain.then(() =>
      this.holding(work).catch((e: unknown) => {
        if (!(e instanceof LockTakenOver)) throw e;
        return this.holding(work);
      }),
    );
    this.chain = next.catch(() => {});
    return next;
  }

  private async holding<T>(work: (assertHeld: () => void) => Promise<T>): Promise<T> {
    const mine = `${process.pid} ${PID_SPACE} ${randomBytes(8).toString('hex')}`;
    // Known as this process's before the file exists: another lock here reading it must not take it for a leftover.
    heldHere.add(mine);
    let held: HeldLock | undefined;
    try {
      held = await this.acquire(mine);
      held.keepFresh(this.staleMs / 3);
      const lock = held;
      return await work(() => {
        if (!lock.stillHeld())
          throw new LockTakenOver(
            `${this.path} was taken over by another process while this one stood still; nothing was written.`,
          );
      });
    } finally {
      heldHere.delete(mine);
      await held?.release();
    }
  }

  /** Takes the lock file, holding `mine`. */
  private async acquire(mine: string): Promise<HeldLock> {
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const held = readLockFile(this.path);
      const [pid, space] = held?.content.split(' ') ?? [];
      const holder = { pid: Number(pid), since: held?.since ?? Date.now() };
      if (!held) {
        const taken = await createLockFile(this.path, mine, this.staleMs);
        if (taken) return taken;
      } else if (
        (Date.now() - held.since > this.staleMs || knownDead(holder.pid, space, held.content)) &&
        (await removeStaleLockFile(this.path, held))
      )
        continue;
      if (Date.now() > deadline)
        throw new TokenStoreError(
          `${this.path} has been held by ${holder.pid > 0 ? `process ${holder.pid}` : 'another process'} for ${Math.round((Date.now() - holder.since) / 1000)} s; try again, or, if that process is not a toolhost, remove the lock directory: rm -r ${this.path}`,
        );
      await sleep(10);
    }
  }
}

/** Whether the holder a lock file names is known to have died (a pid being written counts as alive). */
function knownDead(pid: number, space: string | undefined, content: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || (space !== undefined && space !== PID_SPACE)) return false;
  return pid === process.pid ? !heldHere.has(content) : !processAlive(pid);
}
