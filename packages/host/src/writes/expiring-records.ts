/**
 * The small key-value store write safety needs (previews, idempotency keys): values that
 * expire, and a claim that exactly one caller wins. One implementation per place tokens live:
 * memory, the encrypted file, Redis (shared by replicas).
 */
export interface ExpiringRecords {
  /** Stores `value` unless `key` holds one; true when this call stored it (the claim is won). */
  add(key: string, value: string, ttlMs: number): Promise<boolean>;
  get(key: string): Promise<string | undefined>;
  put(key: string, value: string, ttlMs: number): Promise<void>;
  /** Deletes `key` if it still holds `value` (a claim released only by its holder). */
  removeIf(key: string, value: string): Promise<void>;
  /**
   * Extends `key`'s life if it still holds `value`; false when it does not (expired, taken).
   * Only stores other processes share implement it: their claims are leases their holder
   * renews while alive, so that a holder that dies frees them within seconds.
   */
  renewIf?(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** Writes anything pending (the file store); the others have nothing to flush. */
  flush?(): Promise<void>;
}

import { ToolError } from '@toolhost/core';

type Entry = { value: string; expires: number };

export interface RecordLimits {
  /** Most records kept; a new one beyond is refused (an evicted claim or outcome would let a write go twice). */
  maxRecords?: number;
  /** Most characters of keys and values kept (outcomes hold upstream answers, up to the engine's response cap). */
  maxChars?: number;
}

/** Records by key, with the characters of their keys and values kept up to date. */
class SizedEntries extends Map<string, Entry> {
  chars = 0;

  override set(key: string, entry: Entry): this {
    const old = super.get(key);
    if (old) this.chars -= key.length + old.value.length;
    this.chars += key.length + entry.value.length;
    return super.set(key, entry);
  }

  override delete(key: string): boolean {
    const old = super.get(key);
    if (old) this.chars -= key.length + old.value.length;
    return super.delete(key);
  }

  override clear(): void {
    this.chars = 0;
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
  private makeRoom(chars: number): void {
    const fits = () => this.entries.size < this.maxRecords && this.entries.chars + chars <= this.maxChars;
    if (fits()) return;
    const now = Date.now();
    for (const [k, e] of this.entries) if (e.expires <= now) this.entries.delete(k);
    if (!fits())
      throw new ToolError({
        code: 'store_unavailable',
        retryable: true,
        message: `${this.where} is full (${this.entries.size} previews and idempotency keys, at most ${this.maxRecords}); try again once some expire. Nothing was sent.`,
      });
  }

  async add(key: string, value: string, ttlMs: number): Promise<boolean> {
    if (this.live(key) !== undefined) return false;
    this.set(key, value, ttlMs);
    return true;
  }

  async get(key: string): Promise<string | undefined> {
    return this.live(key)?.value;
  }

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    this.set(key, value, ttlMs);
  }

  async removeIf(key: string, value: string): Promise<void> {
    if (this.live(key)?.value === value) {
      this.entries.delete(key);
      this.changed(key);
    }
  }

  protected set(key: string, value: string, ttlMs: number): void {
    if (!this.entries.has(key)) this.makeRoom(key.length + value.length);
    const now = Date.now();
    if (now - this.swept > SWEEP_MS) {
      this.swept = now;
      for (const [k, e] of this.entries) if (e.expires <= now) this.entries.delete(k);
    }
    this.entries.set(key, { value, expires: now + ttlMs });
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
