import { mkdirSync, readFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { MemoryStateStore } from './state-store.js';

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * The memory store kept in a file (owner-only), for one replica that restarts: the state is
 * written whole to a temporary file, flushed to disk and renamed over the old one, so a crash
 * leaves the old state or the new, never half of one. A change is answered once a write that
 * holds it is in place; the changes made while one write is under way share the next, so a
 * burst of sign-ins costs a few writes, not one each, and the event loop never waits on the
 * disk. Several processes must not share the file: a fleet uses Redis.
 */
export class FileStateStore extends MemoryStateStore {
  private readonly waiting: Waiter[] = [];
  private writing = false;

  constructor(
    private readonly path: string,
    now?: () => number,
  ) {
    super(now);
    let text: string | undefined;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    if (text !== undefined) {
      const saved = JSON.parse(text) as Record<string, { value: string; expiresAt?: number }>;
      for (const [key, entry] of Object.entries(saved)) this.entries.set(key, entry);
      this.sweep();
    }
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  }

  protected override changed(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (!this.writing) void this.writeWhileChanged();
    });
  }

  /** Writes the state as it is now for everyone waiting, again while changes came meanwhile. */
  private async writeWhileChanged(): Promise<void> {
    this.writing = true;
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0);
      this.sweep();
      try {
        await this.write(JSON.stringify(Object.fromEntries(this.entries)));
        for (const waiter of batch) waiter.resolve();
      } catch (e) {
        for (const waiter of batch) waiter.reject(e);
      }
    }
    this.writing = false;
  }

  /** One write of the whole state, in place when it resolves. */
  protected async write(text: string): Promise<void> {
    const temporary = `${this.path}.${process.pid}.tmp`;
    const file = await open(temporary, 'w', 0o600);
    try {
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, this.path);
  }
}
