import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ToolError } from '@toolhost/core';
import { TokenStoreError } from '@toolhost/credentials';
import { MemoryRecords, type RecordLimits, type RecordOwner } from './expiring-records.js';
import { FileOwner } from './file-owner.js';
import { type PerUserPlaces, ProcessPlaces } from './per-user-budget.js';
import { type JournalEntry, RecordJournal } from './record-journal.js';

export interface FileRecordsLimits extends RecordLimits {
  /** Compacts the journal once it has more lines than this and twice as many as live records. */
  compactAfter?: number;
}

function unavailable(message: string): ToolError {
  return new ToolError({ code: 'store_unavailable', retryable: true, message });
}

/** A user's place among their records of one kind, kept as a record of its own. */
const PLACE = 'place:';
const placeKey = (kind: string, userId: string, id: string) =>
  `${PLACE}${JSON.stringify([kind, userId, id])}`;

/**
 * Write-safety records (previews, idempotency keys) beside the encrypted token file, sealed
 * with the same TOOLHOST_TOKEN_KEY, so that a restart keeps them: the same key then still
 * answers its stored outcome. Memory holds the live state (claims stay atomic in the process);
 * each change is appended to a journal (record-journal.ts) and returns once it is on disk, so
 * a change costs its own line whatever the number of records.
 */
export class FileRecords extends MemoryRecords implements PerUserPlaces {
  private readonly journal: RecordJournal;
  private changes = 0;
  private saved: Promise<void> = Promise.resolve();
  /** This store's claim on the file, made once it changes anything. */
  private readonly owner: FileOwner;
  private owned = false;
  private owning: Promise<void> | undefined;
  /** Per kind and user, their places, rebuilt from the file on load. */
  private readonly places = new ProcessPlaces();
  readonly scope = 'on this host';

  constructor(file: string, secret: string, limits: FileRecordsLimits = {}) {
    super(limits);
    if (secret.length < 16)
      throw new TokenStoreError('The token encryption key must be at least 16 characters.');
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    this.journal = new RecordJournal(file, secret, 'Write-records file', limits.compactAfter);
    this.owner = new FileOwner(`${file}.owner`);
    this.load();
  }

  /** Reads the journal; true when there is one. */
  private load(): boolean {
    const loaded = this.loadEntries();
    this.places.clear();
    for (const [key, e] of this.entries) {
      if (!key.startsWith(PLACE)) continue;
      const [kind, userId, id] = JSON.parse(key.slice(PLACE.length)) as [string, string, string];
      this.places.restore(kind, userId, id, e.expires);
    }
    return loaded;
  }

  private loadEntries(): boolean {
    const now = Date.now();
    this.entries.clear();
    const journal = this.journal.read();
    if (!journal) return false;
    for (const [key, e] of journal) if (e.expires > now) this.entries.set(key, e);
    return true;
  }

  /**
   * Each user's places are records in the file too: a host that restarts still knows how many
   * previews and keys each user holds, and does not let them hold their bound again on top.
   */
  async take(kind: string, userId: string, id: string, max: number, ttlMs: number): Promise<boolean> {
    // Taking the file may read it again, which rebuilds the places: first, then count.
    await this.own();
    // Taken before the write: two calls at once cannot both take the last place.
    if (!this.places.claim(kind, userId, id, max, ttlMs)) return false;
    try {
      await this.put(placeKey(kind, userId, id), '', ttlMs);
    } catch (e) {
      this.places.release(kind, userId, id);
      throw e;
    }
    return true;
  }

  async giveBack(kind: string, userId: string, id: string): Promise<void> {
    this.places.release(kind, userId, id);
    await this.removeIf(placeKey(kind, userId, id), '');
  }

  static inDirectory(dataDir: string, secret: string, limits?: FileRecordsLimits): FileRecords {
    return new FileRecords(join(dataDir, 'write-records.enc.jsonl'), secret, limits);
  }

  get file(): string {
    return this.journal.file;
  }

  /** Change lines in the journal (live or dead), for tests and gauges. */
  get journalLines(): number {
    return this.journal.lineCount;
  }

  /**
   * The file has one writer: each keeps every record in memory and writes them all, so a
   * second host on the same data directory would erase the first one's idempotency keys. The
   * first store to change anything owns the file (see FileOwner: an owner file beside it, and
   * a socket that proves its process alive) until it is closed or its process dies; another is
   * refused, saying so.
   */
  private own(): Promise<void> {
    if (this.owned) return Promise.resolve();
    this.owning ??= this.claim().finally(() => {
      this.owning = undefined;
    });
    return this.owning;
  }

  private async claim(): Promise<void> {
    const claimed = await this.owner.claim().catch(() => {
      throw unavailable(`Cannot claim the write-records file ${this.journal.file}; try again shortly.`);
    });
    if (!claimed.held)
      throw unavailable(
        `The write-records file ${this.journal.file} is in use by another toolhost (process ${claimed.pid}): two hosts on one data directory would erase each other's idempotency keys and previews. Give each host its own TOOLHOST_DATA_DIR, or share them through Redis (TOOLHOST_REDIS_URL). Nothing was sent.`,
      );
    this.owned = true;
    try {
      this.journal.removeLeftovers();
      // What the previous writer left is what this one appends to: read again unless the file
      // is as this store read it (reading a full file costs a moment of the event loop).
      if (!(this.journal.exists && this.journal.unchangedSinceRead()) && !this.load())
        this.journal.create(this.liveEntries());
    } catch (e) {
      this.disown();
      const why = e instanceof TokenStoreError ? ` (${e.message})` : '';
      throw unavailable(`Cannot write the write-records file ${this.journal.file}${why}; try again shortly.`);
    }
  }

  override async add(key: string, value: string, ttlMs: number, owner?: RecordOwner): Promise<boolean> {
    await this.own();
    try {
      return await this.durably(() => super.add(key, value, ttlMs, owner));
    } catch (e) {
      // A claim the file does not hold is given back: its caller was told it failed.
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
      throw e;
    }
  }

  override async put(key: string, value: string, ttlMs: number, owner?: RecordOwner): Promise<void> {
    await this.own();
    return this.durably(() => super.put(key, value, ttlMs, owner));
  }

  override async removeIf(key: string, value: string): Promise<void> {
    await this.own();
    return this.durably(() => super.removeIf(key, value));
  }

  /** Writes what is pending and gives the file up (the host is stopping). */
  async flush(): Promise<void> {
    try {
      await this.journal.flush();
    } finally {
      this.disown();
    }
  }

  private disown(): void {
    if (!this.owned) return;
    this.owned = false;
    this.owner.release();
  }

  protected override get where(): string {
    return `The write-records file ${this.journal.file}`;
  }

  protected override changed(key: string): void {
    this.changes += 1;
    const entry = this.entries.get(key);
    this.saved = this.journal.append(
      entry ? [key, entry.value, entry.expires] : [key, null, 0],
      () => this.liveEntries(),
      this.entries.size,
    );
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
      throw unavailable(`Cannot write the write-records file ${this.journal.file}; try again shortly.`);
    }
    return result;
  }

  /** The records that have not expired, as journal entries (a compaction writes them). */
  private *liveEntries(): Iterable<JournalEntry> {
    const now = Date.now();
    for (const [key, e] of this.entries) if (e.expires > now) yield [key, e.value, e.expires];
  }
}
