import type { Cluster, Redis } from 'ioredis';
import { dropFrozen } from './frozen-connection.js';
import type { StoreLogger } from './ports.js';
import type { SharedRedis } from './redis-client.js';
import { within } from './within.js';

/** Why the store is down, or undefined while every node it needs answers. */
type Verdict = string | undefined;

/**
 * Probes in a row whose PING Redis left unanswered (an error is an answer) before its connection
 * is dropped as frozen, and at least as long a silence as a command's timeout: a Redis busy a
 * moment (a slow script, a large DEL) keeps its connection, and every command waiting on a
 * dropped one had already been answered that it failed.
 */
const SILENT_PROBES = 2;

/** Has the cluster client ask for the slots again (it would only on a MOVED or a closed connection). */
const refreshSlots = (cluster: Cluster) =>
  (cluster as unknown as { refreshSlotsCache(cb?: () => void): void }).refreshSlotsCache(() => {});

/**
 * Whether the shared store serves, probed every `everyMs` rather than read from the client's
 * connection state: a frozen Redis keeps its connection "ready" while every command times out,
 * and a Redis Cluster's client stays "ready" while one master is down or a slot range has no
 * copy, though the calls whose keys live there fail. Each probe PINGs the master (every master
 * of a cluster, and asks one whether all slots are served), each within `timeoutMs`; a change
 * of verdict is logged once, with its reason. A Redis (not a cluster) that leaves SILENT_PROBES
 * PINGs in a row unanswered has its connection dropped (see `dropFrozen`).
 */
export class StoreHealth {
  private verdict: Verdict;
  /** Whether this probe logged the outage (a connection that drops logs its own). */
  private logged = false;
  private readonly timer: NodeJS.Timeout;
  private probing = false;
  /** PINGs in a row the (non-cluster) Redis left unanswered, and since when (ms since the epoch). */
  private silent = 0;
  private silentSince = 0;

  constructor(
    private readonly redis: SharedRedis,
    private readonly shown: string,
    private readonly logger: StoreLogger | undefined,
    private readonly timeoutMs: number,
    everyMs = 1000,
    /** How long Redis must leave PINGs unanswered before its connection is dropped (its command timeout). */
    private readonly dropAfterMs = 2 * timeoutMs,
  ) {
    this.timer = setInterval(() => void this.probe(), everyMs);
    this.timer.unref();
  }

  /** Whether the last probe found the store serving (and its client connected). */
  get up(): boolean {
    return this.verdict === undefined && this.redis.status === 'ready';
  }

  /** Probes now; answers whether the store serves. */
  async probe(): Promise<boolean> {
    if (this.probing) return this.up;
    this.probing = true;
    try {
      this.judge(await this.check());
    } finally {
      this.probing = false;
    }
    return this.up;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async check(): Promise<Verdict> {
    if (this.redis.status !== 'ready') {
      this.silent = 0;
      return `connection ${this.redis.status}`;
    }
    if (!this.redis.isCluster) return this.pingOrDrop(this.redis as Redis);
    const cluster = this.redis as Cluster;
    const masters = cluster.nodes('master');
    if (masters.length === 0) return 'no cluster master known';
    const answers = await Promise.all(
      masters.map((node) => this.ping(node, `cluster node ${node.options.host}:${node.options.port}`)),
    );
    const down = answers.find((a) => a !== undefined);
    if (down) {
      // A master that hangs keeps its connection, and the client its slots, until it wakes:
      // asked again, the cluster names its promoted replica once it has one.
      refreshSlots(cluster);
      return down;
    }
    // The client drops a master whose connection closed: its slots are then served by no one
    // it knows, while the others answer and call the cluster healthy until their node timeout.
    const live = new Set(masters.map((n) => `${n.options.host}:${n.options.port}`));
    const slots = (cluster as unknown as { slots: (string[] | undefined)[] }).slots;
    for (let slot = 0; slot < 16384; slot += 1) {
      const owner = slots[slot]?.[0];
      if (owner === undefined || !live.has(owner)) {
        // Asks the cluster again (the client would only on a failed command): a master back, or
        // its replica promoted, is then found by the next probe.
        refreshSlots(cluster);
        return `cluster node ${owner ?? '(none)'} unreachable: slot ${slot} has no serving copy`;
      }
    }
    try {
      const info = await within(this.timeoutMs, masters[0]!.cluster('INFO') as Promise<string>);
      const state = /cluster_state:(\w+)/.exec(info)?.[1];
      if (state !== 'ok') return `cluster state ${state ?? 'unknown'} (a slot range has no serving copy)`;
    } catch (e) {
      return `cluster info: ${(e as Error).message}`;
    }
    return undefined;
  }

  private async pingOrDrop(redis: Redis): Promise<Verdict> {
    let unanswered = false;
    const asked = Date.now();
    const verdict = await this.ping(redis, 'Redis', () => {
      unanswered = true;
    });
    if (unanswered && this.silent === 0) this.silentSince = asked;
    this.silent = unanswered ? this.silent + 1 : 0;
    if (this.silent >= SILENT_PROBES && Date.now() - this.silentSince >= this.dropAfterMs) {
      this.silent = 0;
      dropFrozen(redis);
    }
    return verdict;
  }

  private async ping(node: Redis, what: string, unanswered = () => {}): Promise<Verdict> {
    try {
      await within(this.timeoutMs, node.ping());
      return undefined;
    } catch (e) {
      // No reply by our timeout or the client's, whichever came first (an error is a reply).
      if ((e as Error).name !== 'ReplyError') unanswered();
      return `${what}: ${(e as Error).message}`;
    }
  }

  private judge(verdict: Verdict): void {
    this.verdict = verdict;
    // A connection that is not ready has said so in its own line (connectRedis); the probe
    // speaks for what the connection cannot see: a frozen Redis, a cluster node or slot range.
    if (verdict !== undefined && !this.logged && this.redis.status === 'ready') {
      this.logged = true;
      this.logger?.warn({ redis: this.shown, err: verdict }, 'shared store (Redis) unreachable');
    } else if (verdict === undefined && this.logged) {
      this.logged = false;
      this.logger?.info({ redis: this.shown }, 'shared store (Redis) reachable again');
    }
  }
}
