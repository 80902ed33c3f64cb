import { ToolError } from '@toolhost/core';
import { hashOf } from './secrets.js';
import type { StateStore } from './state-store.js';

/**
 * How many grants one person keeps per client, the newest: each authorization makes one that
 * lives a month, so a script (or a site driving a signed-in browser) could otherwise fill the
 * store with as many as it likes.
 */
export const GRANTS_KEPT = 16;

/**
 * How long an entry added before its code is spent counts as under way, not yet a grant: a
 * presentation spends within seconds (a take-back waits 3), so one older than this was cut
 * short after its spend (the process stopped) and counts, its grant live or not.
 */
const UNDER_WAY_MS = 60_000;

/** How many times a change to one list is made again after another writer's came first. */
const WRITE_TRIES = 8;

/** A grant as its person's list for the client knows it. */
interface Entry {
  id: string;
  /** When it was made (ms since the epoch): the list is in this order, oldest first. */
  at: number;
  /** When its record expires as last written (ms since the epoch): the list lives as long as the last. */
  until: number;
  /** Added before its code was spent: not counted, nor ended, until its presentation settles it. */
  pending?: true;
}

/** What a list's grants are to it: whether one still lives, and ending one (once, however many race). */
export interface GrantEnding<G> {
  alive(grantId: string): Promise<boolean>;
  /** Revokes the grant unless it ended already: the grant where this call ended it, else undefined. */
  endOnce(grantId: string): Promise<G | undefined>;
}

/** The grant a list entry stands for. */
export interface ListedGrant {
  id: string;
  clientId: string;
  subject: string;
  createdAt: number;
  expiresAt?: number;
}

/**
 * Each person's grants per client, newest last, in one record changed by compare-and-set (so
 * replicas and hosts on one file agree): a grant is added before its code is spent, settled
 * once spent (the oldest past `GRANTS_KEPT` then revoked), taken back where the spend failed,
 * and its expiry moved on at each refresh, so that the list outlives every grant in it.
 */
export class GrantLists<G extends ListedGrant> {
  constructor(
    private readonly store: StateStore,
    private readonly ending: GrantEnding<G>,
    /** Told of each grant the list ended, once. */
    private readonly ended: (grant: G) => void = () => {},
  ) {}

  /** Adds a grant about to be started, under way until settled. A failure fails its start. */
  async add(grant: ListedGrant): Promise<void> {
    const entry: Entry = { id: grant.id, at: grant.createdAt, until: untilOf(grant), pending: true };
    await this.change(grant, (entries) => upsert(entries, entry));
  }

  /** Takes back the entry of a grant whose code was not spent (best effort: under way, it counts for nothing). */
  async takeBack(grant: ListedGrant): Promise<void> {
    await this.change(grant, (entries) =>
      entries.some((e) => e.id === grant.id) ? entries.filter((e) => e.id !== grant.id) : undefined,
    ).catch(() => {});
  }

  /**
   * The grant's code is spent: its entry counts, and the oldest of the person's grants for the
   * client past `GRANTS_KEPT` live ones are revoked, each told to `ended` by whichever writer's
   * revocation marked it (two settling at once each see the other's grant, the later one all
   * of them). Best effort: the code is spent and answered whatever becomes of this; an entry
   * left under way counts after a minute, and the next grant ends what this one did not.
   */
  async settle(grant: ListedGrant): Promise<void> {
    try {
      const settled: Entry = { id: grant.id, at: grant.createdAt, until: untilOf(grant) };
      const entries = await this.change(grant, (list) => upsert(list, settled));
      const now = Date.now();
      const counted = entries.filter((e) => !e.pending || now - e.at >= UNDER_WAY_MS);
      if (counted.length <= GRANTS_KEPT) return;
      const gone = new Set<string>();
      // The grant just started is kept whatever the replicas' clocks say (made by one running
      // behind, it would sort oldest and be ended by its own settling); the rest newest first.
      let kept = 1;
      for (const entry of [...counted].reverse()) {
        if (entry.id === grant.id) continue;
        if (kept < GRANTS_KEPT && (await this.ending.alive(entry.id))) kept += 1;
        else gone.add(entry.id);
      }
      // Oldest first, each revoked before it leaves the list: one a failure left is the next grant's to end.
      for (const { id } of counted.filter((e) => gone.has(e.id))) {
        const ended = await this.ending.endOnce(id);
        if (ended !== undefined) this.ended(ended);
      }
      await this.change(grant, (list) =>
        list.some((e) => gone.has(e.id)) ? list.filter((e) => !gone.has(e.id)) : undefined,
      );
    } catch {
      // Best effort, as above.
    }
  }

  /**
   * A refresh moved the grant's expiry on: so does its entry, and the list's with it (added
   * where missing: a grant made before lists were kept, or one whose list expired or was lost).
   * Best effort: the refresh is answered whatever becomes of this; the next one tries again.
   */
  async extend(grant: ListedGrant): Promise<void> {
    const entry: Entry = { id: grant.id, at: grant.createdAt, until: untilOf(grant) };
    await this.change(grant, (list) => upsert(list, entry)).catch(() => {});
  }

  /**
   * Changes the grant's list by `edit` (undefined: nothing to change), in one compare-and-set
   * of the list as read, read again where another writer changed it first; entries of grants
   * expired are dropped on the way. The list as written (or as read, where nothing changed).
   */
  private async change(
    grant: ListedGrant,
    edit: (entries: Entry[]) => Entry[] | undefined,
  ): Promise<Entry[]> {
    const key = `grants-of:${hashOf(JSON.stringify([grant.subject, grant.clientId]))}`;
    for (let tries = 0; tries < WRITE_TRIES; tries += 1) {
      const saved = await this.store.get(key);
      const now = Date.now();
      const entries = parsed(saved).filter((e) => e.until > now);
      const next = edit(entries);
      if (next === undefined) return entries;
      // As long as its longest-lived grant: a refresh moves a grant's expiry on.
      const last = Math.max(now + 60_000, ...next.map((e) => e.until));
      if (await this.store.compareAndSet(key, saved, JSON.stringify(next), (last - now) / 1000)) return next;
    }
    throw new ToolError({
      code: 'store_unavailable',
      retryable: true,
      message: 'Too many authorizations of this person and client at once; try again shortly.',
    });
  }
}

/** When a grant's record expires as last written; a grant of a version before said not: a month on. */
const untilOf = (grant: ListedGrant) => grant.expiresAt ?? Date.now() + 30 * 86_400_000;

/** The entries with `entry` in place of its grant's, else where its time puts it. */
function upsert(entries: Entry[], entry: Entry): Entry[] {
  const others = entries.filter((e) => e.id !== entry.id);
  const at = others.findIndex((e) => e.at > entry.at);
  return at < 0 ? [...others, entry] : [...others.slice(0, at), entry, ...others.slice(at)];
}

/** A list as stored (none, or one this version cannot read: empty). */
function parsed(saved: string | undefined): Entry[] {
  if (saved === undefined) return [];
  try {
    const entries: unknown = JSON.parse(saved);
    return Array.isArray(entries) ? (entries as Entry[]) : [];
  } catch {
    return [];
  }
}
