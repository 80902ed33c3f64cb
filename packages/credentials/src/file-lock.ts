import { readFileSync, statSync } from 'node:fs';
import { open, unlink } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { TokenStoreError } from './credentials-error.js';

/** Whether a process of that pid still runs here (EPERM: it runs, as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A lock shared by the processes writing one file (a host and the CLI, two hosts on one data
 * directory): a lock file created exclusively (O_EXCL), holding the holder's pid. One left by
 * a process that died, or held longer than `staleMs`, is taken over. Written here rather than
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
      await this.acquire();
      try {
        return await work();
      } finally {
        await unlink(this.path).catch(() => {});
      }
    });
    this.chain = next.catch(() => {});
    return next;
  }

  private async acquire(): Promise<void> {
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      try {
        const handle = await open(this.path, 'wx', 0o600);
        await handle.writeFile(String(process.pid));
        await handle.close();
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const holder = this.holder();
      if (holder === undefined || !processAlive(holder.pid) || Date.now() - holder.since > this.staleMs) {
        await unlink(this.path).catch(() => {});
        continue;
      }
      if (Date.now() > deadline)
        throw new TokenStoreError(
          `${this.path} has been held by process ${holder.pid} for ${Math.round((Date.now() - holder.since) / 1000)} s; try again, or remove it if that process is not a toolhost.`,
        );
      await sleep(10);
    }
  }

  private holder(): { pid: number; since: number } | undefined {
    try {
      const pid = Number(readFileSync(this.path, 'utf8'));
      const since = statSync(this.path).mtimeMs;
      // Being written by its holder this instant: taken for alive.
      return { pid: Number.isInteger(pid) && pid > 0 ? pid : process.pid, since };
    } catch {
      return undefined;
    }
  }
}
