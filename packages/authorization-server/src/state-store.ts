/**
 * Where the authorization server keeps its codes, clients, grants, sessions and keys: short
 * string records under keys, each with an expiry. `take` reads and deletes in one step, and
 * `compareAndSet` changes a record only as it was read, so that a code or refresh token is
 * redeemed once however many replicas race for it.
 */
export interface StateStore {
  get(key: string): Promise<string | undefined>;
  /**
   * Writes the record, to expire after `ttlSeconds` (none: kept until deleted). A `durable`
   * write must survive a failover of a replicated store: it resolves once replicas hold it.
   */
  set(key: string, value: string, ttlSeconds?: number, options?: WriteOptions): Promise<void>;
  /** Writes the record only where there is none; true when written (`durable` as for `set`). */
  setIfAbsent(key: string, value: string, ttlSeconds?: number, options?: WriteOptions): Promise<boolean>;
  /**
   * Writes the record only where it still is `expected` (undefined: where there is none), in
   * one step: of several callers that read the same record and change it, one does. True when
   * written, or found already `value` (a write sent again after its answer was lost: callers
   * write values nobody else writes); `durable` as for `set`. One key, so that a Redis
   * Cluster runs it on one node.
   */
  compareAndSet(
    key: string,
    expected: string | undefined,
    value: string,
    ttlSeconds?: number,
    options?: WriteOptions,
  ): Promise<boolean>;
  /** Reads and deletes the record at once: of several callers, one gets it. */
  take(key: string): Promise<string | undefined>;
  delete(key: string): Promise<void>;
  /** Adds one to a counter that starts its `windowSeconds` window at its first count. */
  increment(key: string, windowSeconds: number): Promise<number>;
  /** Takes one count back (an attempt that turned out not to count); nothing once the window ended. */
  decrement(key: string): Promise<void>;
  close?(): Promise<void>;
}

export interface WriteOptions {
  /**
   * Lost in a failover, the write would undo something a person relies on: a revocation, or
   * what a client was just handed (a code, a refresh token, its registration).
   */
  durable?: boolean;
}

const SWEEP_EVERY_MS = 60_000;

export interface Entry {
  value: string;
  /** Milliseconds since the epoch; absent: no expiry. */
  expiresAt?: number;
}

/**
 * A store in this process's memory: one replica, lost at restart. Every operation completes
 * without yielding, so `take` is atomic within the process.
 */
export class MemoryStateStore implements StateStore {
  /** Replaced whole by the file store once a write holds its changes (made on a copy till then). */
  protected entries = new Map<string, Entry>();
  /** Counts the changes worth keeping (records written or removed, not counters or expiry). */
  protected revision = 0;
  private sweptAt = 0;

  constructor(private readonly now: () => number = Date.now) {}

  protected live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /**
   * Makes a change (`apply` reads and writes the records at once) and answers its result once
   * the change is kept: here at once; the file store runs it on the file as it is then.
   */
  protected async change<T>(apply: () => T): Promise<T> {
    return apply();
  }

  private entry(value: string, ttlSeconds?: number): Entry {
    this.sweepNowAndThen();
    return ttlSeconds === undefined ? { value } : { value, expiresAt: this.now() + ttlSeconds * 1000 };
  }

  private put(key: string, value: string, ttlSeconds?: number): void {
    this.entries.set(key, this.entry(value, ttlSeconds));
    this.revision += 1;
  }

  private remove(key: string): void {
    if (this.entries.delete(key)) this.revision += 1;
  }

  async get(key: string): Promise<string | undefined> {
    return this.live(key)?.value;
  }

  set(key: string, value: string, ttlSeconds?: number): Promise<void> {
    return this.change(() => this.put(key, value, ttlSeconds));
  }

  setIfAbsent(key: string, value: string, ttlSeconds?: number): Promise<boolean> {
    return this.change(() => {
      if (this.live(key) !== undefined) return false;
      this.put(key, value, ttlSeconds);
      return true;
    });
  }

  compareAndSet(
    key: string,
    expected: string | undefined,
    value: string,
    ttlSeconds?: number,
  ): Promise<boolean> {
    return this.change(() => {
      const now = this.live(key)?.value;
      // Already as it would write it: a write retried after its answer was lost, as Redis's.
      if (now === value) return true;
      if (now !== expected) return false;
      this.put(key, value, ttlSeconds);
      return true;
    });
  }

  take(key: string): Promise<string | undefined> {
    return this.change(() => {
      const entry = this.live(key);
      if (entry) this.remove(key);
      return entry?.value;
    });
  }

  delete(key: string): Promise<void> {
    return this.change(() => this.remove(key));
  }

  async increment(key: string, windowSeconds: number): Promise<number> {
    const entry = this.live(key);
    const count = entry ? Number(entry.value) + 1 : 1;
    this.entries.set(key, entry ? { ...entry, value: String(count) } : this.entry('1', windowSeconds));
    // Counters are not worth a write to disk each: they bound a burst, not a lifetime.
    return count;
  }

  async decrement(key: string): Promise<void> {
    const entry = this.live(key);
    if (entry) this.entries.set(key, { ...entry, value: String(Number(entry.value) - 1) });
  }

  /** Drops expired records (the file store writes fewer of them). */
  protected sweep(): void {
    for (const key of [...this.entries.keys()]) this.live(key);
  }

  /**
   * A record is dropped when read after it expired; one nobody reads again (an authorization
   * request never completed, a counter of an address not seen since) would stay until the
   * process ends, and anyone can make those. So each new record sweeps, once a minute at most.
   */
  private sweepNowAndThen(): void {
    const now = this.now();
    if (now - this.sweptAt < SWEEP_EVERY_MS) return;
    this.sweptAt = now;
    this.sweep();
  }
}
