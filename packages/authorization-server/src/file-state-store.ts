import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { MemoryStateStore } from './state-store.js';

/**
 * The memory store kept in a file (owner-only), for one replica that restarts: each change
 * is written whole to a temporary file and renamed over the old one, so a crash leaves the
 * old state or the new, never half of one. Several processes must not share the file: a
 * fleet uses Redis.
 */
export class FileStateStore extends MemoryStateStore {
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
  }

  protected override async changed(): Promise<void> {
    this.sweep();
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(Object.fromEntries(this.entries)), { mode: 0o600 });
    renameSync(temporary, this.path);
  }
}
