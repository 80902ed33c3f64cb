import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ToolError } from '@toolhost/core';
import { processAlive } from '../auth/file-lock.js';
import { isRecord, SealedFile } from '../auth/sealed-file.js';
import { MemoryRecords, type RecordLimits } from './expiring-records.js';

const FORMAT = 'toolhost-write-records-v1';

/** On disk: each key's value and when it expires (ms since the epoch). */
type Contents = Record<string, [value: string, expires: number]>;

const isContents = (v: unknown): v is Contents =>
  isRecord(v) &&
  Object.values(v).every(
    (e) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && typeof e[1] === 'number',
  );

export type FileRecordsLimits = RecordLimits;

function unavailable(message: string): ToolError {
  return new ToolError({ code: 'store_unavailable', retryable: true, message });
}

/**
 * Write-safety records (previews, idempotency keys) beside the encrypted token file, sealed
 * with the same TOOLHOST_TOKEN_KEY, so that a restart keeps them: the same key then still
 * answers its stored outcome. Memory holds the live state (claims stay atomic in the process);
 * each change returns once a write holding it is on disk, and changes made while a write runs
 * share the next one.
 */
export class FileRecords extends MemoryRecords {
  private readonly sealed: SealedFile;
  private changes = 0;
  private saved: Promise<void> = Promise.resolve();
  /** This store's claim on the file, `<pid> <random>`, once it has changed anything. */
  private readonly owner = `${process.pid} ${randomBytes(6).toString('hex')}`;
  private owned = false;

  constructor(file: string, secret: string, limits: FileRecordsLimits = {}) {
    super(limits);
    this.sealed = new SealedFile({
      file,
      secret,
      format: FORMAT,
      label: 'Write-records file',
      kind: 'write-records store',
      contents: () => this.snapshot(),
    });
    const stored = this.sealed.read(isContents) as Contents | undefined;
    const now = Date.now();
    for (const [key, [value, expires]] of Object.entries(stored ?? {}))
      if (expires > now) this.entries.set(key, { value, expires });
  }

  static inDirectory(dataDir: string, secret: string, limits?: FileRecordsLimits): FileRecords {
    return new FileRecords(join(dataDir, 'write-records.enc.json'), secret, limits);
  }

  get file(): string {
    return this.sealed.file;
  }

  /**
   * The file has one writer: each keeps every record in memory and writes them all, so a
   * second host on the same data directory would erase the first one's idempotency keys. The
   * first store to change anything owns the file (an owner file beside it, with its pid) until
   * it is closed or its process dies; another is refused, saying so.
   */
  private own(): void {
    if (this.owned) return;
    const path = `${this.sealed.file}.owner`;
    let holder: string | undefined;
    try {
      holder = readFileSync(path, 'utf8').trim();
    } catch {
      holder = undefined;
    }
    const pid = Number(holder?.split(' ')[0]);
    if (holder && holder !== this.owner && Number.isInteger(pid) && processAlive(pid))
      throw unavailable(
        `The write-records file ${this.sealed.file} is in use by another toolhost (process ${pid}): two hosts on one data directory would erase each other's idempotency keys and previews. Give each host its own TOOLHOST_DATA_DIR, or share them through Redis (TOOLHOST_REDIS_URL). Nothing was sent.`,
      );
    writeFileSync(path, this.owner, { mode: 0o600 });
    this.owned = true;
  }

  override async add(key: string, value: string, ttlMs: number): Promise<boolean> {
    this.own();
    try {
      return await this.durably(() => super.add(key, value, ttlMs));
    } catch (e) {
      // A claim the file does not hold is given back: its caller was told it failed.
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
      throw e;
    }
  }

  override async put(key: string, value: string, ttlMs: number): Promise<void> {
    this.own();
    return this.durably(() => super.put(key, value, ttlMs));
  }

  override async removeIf(key: string, value: string): Promise<void> {
    this.own();
    return this.durably(() => super.removeIf(key, value));
  }

  /** Writes what is pending and gives the file up (the host is stopping). */
  async flush(): Promise<void> {
    try {
      await this.sealed.flush();
    } finally {
      this.disown();
    }
  }

  private disown(): void {
    if (!this.owned) return;
    this.owned = false;
    try {
      if (readFileSync(`${this.sealed.file}.owner`, 'utf8').trim() === this.owner)
        unlinkSync(`${this.sealed.file}.owner`);
    } catch {
      // Gone already.
    }
  }

  protected override get where(): string {
    return `The write-records file ${this.sealed.file}`;
  }

  protected override changed(): void {
    this.changes += 1;
    this.saved = this.sealed.save();
    // Awaited by the change's caller; this only keeps a failure from being reported unhandled.
    this.saved.catch(() => {});
  }

  /** Runs a change and waits until the file holds it. */
  private async durably<T>(change: () => Promise<T>): Promise<T> {
    const before = this.changes;
    const result = await change();
    if (this.changes === before) return result;
    try {
      await this.saved;
    } catch {
      throw unavailable(`Cannot write the write-records file ${this.sealed.file}; try again shortly.`);
    }
    return result;
  }

  /** What is written: the records that have not expired. */
  private snapshot(): Contents {
    const now = Date.now();
    const out: Contents = {};
    for (const [key, e] of this.entries) if (e.expires > now) out[key] = [e.value, e.expires];
    return out;
  }
}
