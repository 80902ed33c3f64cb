import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { TokenStoreError } from './credentials-error.js';
import { createLockFile, readLockFile, removeOwnLockFile, removeStaleLockFile } from './lock-files.js';

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

/**
 * A lock shared by the processes writing one file (a host and the CLI, two hosts on one data
 * directory): a lock file created exclusively (O_EXCL), holding the holder's pid and host name.
 * One held longer than `staleMs` is taken over, or sooner where its holder is known dead: a
 * process of this host that no longer runs, or this very process in an earlier life (a
 * container's pid 1 restarted). A pid of another host (another container on a shared volume)
 * names nothing here, so only the age counts for it. Written here rather than
 * with proper-lockfile: its mkdir and mtime-refresh scheme needs a timer per held lock, where
 * these locks last one file write.
 */
export class FileLock {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly waitMs = 5_000,
    private readonly staleMs = 30_000,
  ) {}

  /** Runs `work` holding the lock (in this process, one at a time). */
  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(async () => {
      const mine = await this.acquire();
      heldHere.add(mine);
      try {
        return await work();
      } finally {
        heldHere.delete(mine);
        await removeOwnLockFile(this.path, mine);
      }
    });
    this.chain = next.catch(() => {});
    return next;
  }

  /** Takes the lock file; what it holds. */
  private async acquire(): Promise<string> {
    const mine = `${process.pid} ${hostname()} ${randomBytes(8).toString('hex')}`;
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      if (await createLockFile(this.path, mine)) return mine;
      const held = readLockFile(this.path);
      if (held === undefined) continue;
      const [pid, host] = held.content.split(' ');
      const holder = { pid: Number(pid), since: held.since };
      if (Date.now() - held.since > this.staleMs || knownDead(holder.pid, host, held.content)) {
        await removeStaleLockFile(this.path, held.content);
        continue;
      }
      if (Date.now() > deadline)
        throw new TokenStoreError(
          `${this.path} has been held by process ${holder.pid} for ${Math.round((Date.now() - holder.since) / 1000)} s; try again, or remove it if that process is not a toolhost.`,
        );
      await sleep(10);
    }
  }
}

/** Whether the holder a lock file names is known to have died (a pid being written counts as alive). */
function knownDead(pid: number, host: string | undefined, content: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || (host !== undefined && host !== hostname())) return false;
  return pid === process.pid ? !heldHere.has(content) : !processAlive(pid);
}
