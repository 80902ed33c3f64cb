import type { ExpiringRecords, RecordOwner } from '@toolhost/redis-store';

export type { ExpiringRecords, RecordOwner };

import { ToolError } from '@toolhost/core';

type Entry = { value: string; expires: number; owner?: string | undefined };

/**
 * The share of a store's records and characters one user may hold: their previews and stored
 * outcomes (each up to the engine's response cap) could otherwise fill the store, and every
 * other user's writes would be refused until they expire.
 */
export const USER_SHARE = 0.25;

export interface RecordLimits {
  /** Most records kept; a new one beyond is refused (an evicted claim or outcome would let a write go twice). */
  maxRecords?: number;
  /** Most characters of keys and values kept (outcomes hold upstream answers, up to the engine's response cap). */
  maxChars?: number;
}

/** Records by key, with the characters of their keys and values kept up to date, in all and per owner. */
class SizedEntries extends Map<string, Entry> {
  chars = 0;
  /** Per owner, their records and characters. */
  readonly owners = new Map<string, { records: number; chars: number }>();

  private count(key: string, entry: Entry, sign: 1 | -1): void {
    const chars = key.length + entry.value.length;
    this.chars += sign * chars;
    if (entry.owner === undefined) return;
    const held = this.owners.get(entry.owner) ?? { records: 0, chars: 0 };
    held.records += sign;
    held.chars += sign * chars;
    if (held.records === 0) this.owners.delete(entry.owner);
    else this.owners.set(entry.owner, held);
  }

  override set(key: string, entry: Entry): this {
    const old = super.get(key);
    if (old) this.count(key, old, -1);
    this.count(key, entry, 1);
    return super.set(key, entry);
  }

  override delete(key: string): boolean {
    const old = super.get(key);
    if (old) this.count(key, old, -1);
    return super.delete(key);
  }

  override clear(): void {
    this.chars = 0;
    this.owners.clear();
    super.clear();
  }
}

/** Sweeps at most once a minute: expired entries are also skipped on read, so this only bounds memory. */
const SWEEP_MS = 60_000;

/** The default: one process, lost on restart; bounded, as the file is. */
export class MemoryRecords implements ExpiringRecords {
  protected readonly entries = new SizedEntries();
  private swept = Date.now();
  private readonly maxRecords: number;
  private readonly maxChars: number;

  constructor(limits: RecordLimits = {}) {
    this.maxRecords = limits.maxRecords ?? 10_000;
    this.maxChars = limits.maxChars ?? 64 * 1024 * 1024;
  }

  /** What the refusal says is full. */
  protected get where(): string {
    return 'The in-memory store of write-safety records (no TOOLHOST_TOKEN_KEY)';
  }

  /**
   * Refuses a new record when the records are at their bounds, expired ones dropped first. The
   * sizes are kept as records change: a change costs the same however many records there are.
   */
  private makeRoom(key: string, value: string, owner: RecordOwner | undefined): void {
    const replaced = this.entries.get(key);
    const chars = key.length + value.length;
    const mine = () => {
      // What a sent request answered is kept whatever its size: losing it could send it twice.
      if (owner === undefined || owner.afterSend) return true;
      const held = this.entries.owners.get(owner.userId) ?? { records: 0, chars: 0 };
      const same = replaced?.owner === owner.userId;
      const records = held.records + (same ? 0 : 1);
      const used = held.chars + chars - (same ? key.length + replaced.value.length : 0);
      return records <= this.maxRecords * USER_SHARE && used <= this.maxChars * USER_SHARE;
    };
    // A record replaced in place (an outcome over its claim) always fits the store as a whole.
    const fits = () =>
      (replaced !== undefined ||
        (this.entries.size < this.maxRecords && this.entries.chars + chars <= this.maxChars)) &&
      mine();
    if (fits()) return;
    const now = Date.now();
    for (const [k, e] of this.entries) if (e.expires <= now && k !== key) this.entries.delete(k);
    if (!mine())
      throw new ToolError({
        code: 'store_unavailable',
        retryable: true,
        message: `Your previews and idempotency keys hold the most one user may of ${this.where.replace(/^The /, 'the ')} (a quarter: ${Math.floor(this.maxRecords * USER_SHARE)} records, ${Math.floor((this.maxChars * USER_SHARE) / 1024 / 1024)} MiB): apply some, or wait for some to expire. Nothing was sent.`,
      });
    if (!fits())
      throw new ToolError({
        code: 'store_unavailable',
        retryable: true,
        message: `${this.where} is full (${this.entries.size} previews and idempotency keys, at most ${this.maxRecords}); try again once some expire. Nothing was sent.`,
      });
  }

  async add(key: string, value: string, ttlMs: number, owner?: RecordOwner): Promise<boolean> {
    if (this.live(key) !== undefined) return false;
    this.set(key, value, ttlMs, owner);
    return true;
  }

  async get(key: string): Promise<string | undefined> {
    return this.live(key)?.value;
  }

  async put(key: string, value: string, ttlMs: number, owner?: RecordOwner): Promise<void> {
    this.set(key, value, ttlMs, owner);
  }

  async removeIf(key: string, value: string): Promise<void> {
    if (this.live(key)?.value === value) {
      this.entries.delete(key);
      this.changed(key);
    }
  }

  protected set(key: string, value: string, ttlMs: number, owner?: RecordOwner): void {
    this.makeRoom(key, value, owner);
    const now = Date.now();
    if (now - this.swept > SWEEP_MS) {
      this.swept = now;
      for (const [k, e] of this.entries) if (e.expires <= now) this.entries.delete(k);
    }
    this.entries.set(key, { value, expires: now + ttlMs, owner: owner?.userId });
    this.changed(key);
  }

  /** Told after every change of `key` (the file store writes it then). */
  protected changed(_key: string): void {}

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expires <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }
}
