import { randomUUID } from 'node:crypto';
import { CONFIG_DEFAULTS } from '../config/config-defaults.js';
import type { SharedResults, StoredResult } from '../replicas.js';

/** The scheme of the resources that hold results too large for a tool result. */
export const RESULT_URI_PREFIX = 'toolhost://results/';

export interface ResultStoreOptions {
  /** How long a result stays readable (default 900 s). */
  ttlSeconds?: number;
  /** The most bytes held in all; the oldest results go first (default 256 MiB). */
  maxTotalBytes?: number;
  /**
   * The most bytes held for one user (default a quarter of the total): beyond, that user's
   * own oldest results go, so that one user's results never push out the others'.
   */
  maxUserBytes?: number;
  /** The clock, for tests. */
  now?: () => number;
  /** Where replicas share results (Redis): each is written there too, and read there when not here. */
  shared?: SharedResults;
  /** Told when a result could not be shared (it stays readable on this replica). */
  onShareFailed?: (error: unknown) => void;
}

/**
 * Holds the full bodies that were too large to return, for `resources/read`. Each result is
 * private to the user whose call produced it (its URI is also unguessable) and expires; memory
 * is bounded by dropping the oldest results first.
 */
export class ResultStore {
  private readonly entries = new Map<string, StoredResult & { userId: string }>();
  private readonly ttlMs: number;
  private readonly maxTotalBytes: number;
  private readonly maxUserBytes: number;
  private readonly now: () => number;
  private totalBytes = 0;
  private readonly userBytes = new Map<string, number>();

  constructor(options: ResultStoreOptions = {}) {
    this.ttlMs = (options.ttlSeconds ?? CONFIG_DEFAULTS.mcp.resultTtlSeconds) * 1000;
    this.maxTotalBytes = options.maxTotalBytes ?? 256 * 2 ** 20;
    this.maxUserBytes = options.maxUserBytes ?? this.maxTotalBytes / 4;
    this.now = options.now ?? Date.now;
    this.shared = options.shared;
    this.onShareFailed = options.onShareFailed;
  }

  private readonly shared: SharedResults | undefined;
  private readonly onShareFailed: ((error: unknown) => void) | undefined;

  get ttlSeconds(): number {
    return this.ttlMs / 1000;
  }

  /** Keeps `text` for `userId`; returns where and until when it can be read. */
  put(userId: string, tool: string, text: string): StoredResult {
    this.sweep();
    const bytes = Buffer.byteLength(text);
    const entry = {
      uri: `${RESULT_URI_PREFIX}${randomUUID()}`,
      tool,
      text,
      bytes,
      expiresAt: this.now() + this.ttlMs,
      userId,
    };
    this.entries.set(entry.uri, entry);
    this.totalBytes += bytes;
    this.userBytes.set(userId, (this.userBytes.get(userId) ?? 0) + bytes);
    // The user's own oldest first, then anyone's (Maps iterate oldest first).
    for (const [uri, old] of this.entries) {
      if ((this.userBytes.get(userId) ?? 0) <= this.maxUserBytes || uri === entry.uri) break;
      if (old.userId === userId) this.remove(uri, old.bytes);
    }
    this.shared?.put(entry, this.maxUserBytes).catch((e: unknown) => this.onShareFailed?.(e));
    // Maps iterate in insertion order: the first entries are the oldest.
    for (const [uri, old] of this.entries) {
      if (this.totalBytes <= this.maxTotalBytes || uri === entry.uri) break;
      this.remove(uri, old.bytes);
    }
    return entry;
  }

  /** The result at `uri` if it belongs to `userId` and has not expired. */
  get(uri: string, userId: string): StoredResult | undefined {
    const entry = this.entries.get(uri);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.remove(uri, entry.bytes);
      return undefined;
    }
    return entry.userId === userId ? entry : undefined;
  }

  /** The result at `uri` for `userId`, here or, with replicas, wherever it was made. */
  async read(uri: string, userId: string): Promise<StoredResult | undefined> {
    return this.get(uri, userId) ?? (await this.shared?.get(uri, userId).catch(() => undefined));
  }

  /** The live results of one user, on every replica where they are shared. */
  async listAll(userId: string): Promise<Omit<StoredResult, 'text'>[]> {
    const here = this.list(userId);
    const shared = await this.shared?.list(userId).catch(() => undefined);
    if (!shared) return here;
    const seen = new Set(here.map((r) => r.uri));
    return [...here, ...shared.filter((r) => !seen.has(r.uri))];
  }

  /** The live results of one user, oldest first. */
  list(userId: string): StoredResult[] {
    this.sweep();
    return [...this.entries.values()].filter((e) => e.userId === userId);
  }

  private sweep(): void {
    const now = this.now();
    for (const [uri, entry] of this.entries) if (entry.expiresAt <= now) this.remove(uri, entry.bytes);
  }

  private remove(uri: string, bytes: number): void {
    const entry = this.entries.get(uri);
    if (!entry || !this.entries.delete(uri)) return;
    this.totalBytes -= bytes;
    const left = (this.userBytes.get(entry.userId) ?? 0) - bytes;
    if (left > 0) this.userBytes.set(entry.userId, left);
    else this.userBytes.delete(entry.userId);
  }
}
