import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ToolOutcome } from '@toolhost/core';
import type { DispatchResult } from '@toolhost/engine';
import type { ExpiringRecords } from './expiring-records.js';
import { type PerUserPlaces, ProcessPlaces } from './per-user-budget.js';
import type { RecordCodec } from './record-codec.js';

const require = createRequire(import.meta.url);
// Required, not imported: see docs/performance.md, "CommonJS packages at start".
const { stringify } = require('safe-stable-stringify') as typeof import('safe-stable-stringify');

/** Keys one user may have answering stored outcomes on one host (or on all replicas sharing a store). */
export const MAX_KEYS_PER_USER = 1000;

function tooManyKeys(max: number, scope: string, ttlMs: number): ToolOutcome {
  return {
    ok: false,
    error: {
      code: 'store_unavailable',
      message: `You have ${max} idempotency keys holding outcomes, the most one user may have ${scope} (tools.idempotencyKeysPerUser; each is kept ${ttlMs / 1000} s): send without a key, or later. Nothing was sent.`,
      retryable: true,
      parameter: 'idempotency_key',
    },
  };
}

/**
 * A key (or a confirmation) that cannot guard a call, refused naming `parameter`: an empty one
 * was taken as none, and the write sent unguarded; another type stood for its text
 * (`[object Object]` for every object), so that unrelated calls shared a key.
 */
export function refusedKey(parameter: string, key: unknown): ToolOutcome | undefined {
  if (key === undefined || (typeof key === 'string' && key !== '' && key.length <= 255)) return undefined;
  const message = `'${parameter}' must be a string of 1 to 255 characters.`;
  return { ok: false, error: { code: 'invalid_argument', message, retryable: false, parameter } };
}

/** What a key is checked against: the tool and its arguments, whatever their key order. */
export function callFingerprint(tool: string, args: unknown): string {
  return createHash('sha256')
    .update(stringify([tool, args ?? {}]) ?? '')
    .digest('base64url');
}

interface StoredOutcome {
  fingerprint: string;
  outcome: ToolOutcome;
}

function conflict(): ToolOutcome {
  return {
    ok: false,
    error: {
      code: 'idempotency_conflict',
      message:
        'This idempotency key was used with other arguments (or another tool); use a new key for a new request.',
      retryable: false,
      parameter: 'idempotency_key',
    },
  };
}

function inProgress(waitedMs: number): ToolOutcome {
  return {
    ok: false,
    error: {
      code: 'idempotency_in_progress',
      message: `A call with this idempotency key is still running (on this host or another replica; waited ${Math.round(waitedMs / 1000)} s). Nothing was sent now: call again with the same key shortly to get its outcome.`,
      retryable: true,
      retryAfterSeconds: 2,
      parameter: 'idempotency_key',
    },
  };
}

function outcomeUnknown(): ToolOutcome {
  return {
    ok: false,
    error: {
      code: 'idempotency_outcome_unknown',
      message:
        'The call that used this idempotency key stopped before its outcome was stored (its host or replica stopped, or lost its store): its request may have reached the upstream. Nothing was sent now. Check upstream whether the change was made; to send it again, use a new idempotency key.',
      retryable: false,
      parameter: 'idempotency_key',
    },
  };
}

/**
 * What a key guards, as its records and refusals name it: a caller's idempotency key, or a
 * person's confirmation of one call (confirmed-calls.ts). Both send at most once per user and
 * key, and answer the first outcome to a retry.
 */
export interface KeyKind {
  /** Prefix of its records, and the kind of its per-user places. */
  name: string;
  conflict(): ToolOutcome;
  inProgress(waitedMs: number): ToolOutcome;
  outcomeUnknown(): ToolOutcome;
  tooMany(max: number, scope: string, ttlMs: number): ToolOutcome;
}

export const IDEMPOTENCY_KEYS: KeyKind = {
  name: 'idempotency',
  conflict,
  inProgress,
  outcomeUnknown,
  tooMany: tooManyKeys,
};

/** This process: in a store no other process shares, a claim of another boot is a dead process's. */
const BOOT = randomBytes(6).toString('hex');

export interface IdempotencyOptions {
  /** How long a key answers its stored outcome. */
  ttlMs: number;
  /**
   * How long a claim lasts unrenewed where processes share the store (Redis): its holder renews
   * it every third of this while its call runs, so a holder that dies (or loses Redis) frees
   * it within this time.
   */
  claimLeaseMs?: number;
  /** How long a claim lasts in a store of this process alone (memory, its file): no renewal needed. */
  claimTtlMs?: number;
  /** How long a caller waits for the same key's call elsewhere before being told `idempotency_in_progress`. */
  waitMs?: number;
  /** How often such a caller looks whether that call has finished. */
  pollMs?: number;
  /** How long a holder keeps trying to store an outcome (or free its key) when the store refused. */
  finishRetryMs?: number;
  /** Told how long a call waited on its key held elsewhere (for a gauge). */
  onWaited?: (ms: number) => void;
  /** Keys with stored outcomes per user (default MAX_KEYS_PER_USER). */
  maxPerUser?: number;
  /** Where each user's keys are counted (default: by this process). */
  places?: PerUserPlaces;
  /** What the keys guard (default: callers' idempotency keys). */
  kind?: KeyKind;
}

type Known = { kind: 'outcome'; outcome: ToolOutcome } | { kind: 'running' } | { kind: 'free' };

/**
 * Idempotency keys, per user: the first call with a key sends; while it runs, the others with
 * the same key wait for it (in this process on its promise, elsewhere by polling the shared
 * claim, for a while); afterwards they get its stored outcome. Outcomes whose request
 * certainly never reached the upstream are not stored: the key is free again.
 *
 * Three records per key: the claim (a lease its holder renews), the attempt (written before
 * sending, kept for the key's life) and the outcome. A claim gone while its attempt remains
 * means its holder stopped mid-call: the request may have left, so the key answers
 * `idempotency_outcome_unknown` and never sends again.
 */
export class IdempotencyKeys {
  private readonly local = new Map<string, { fingerprint: string; outcome: Promise<ToolOutcome> }>();
  private readonly claimMs: number;
  private readonly leased: boolean;
  private readonly waitMs: number;
  private readonly pollMs: number;
  private readonly finishRetryMs: number;
  private readonly places: PerUserPlaces;
  private readonly maxPerUser: number;
  private readonly kind: KeyKind;

  constructor(
    private readonly records: ExpiringRecords,
    private readonly codec: RecordCodec,
    private readonly options: IdempotencyOptions,
  ) {
    this.leased = records.renewIf !== undefined;
    // Unleased: longer than a person's confirmation (10 min) plus the engine's timeouts and retries.
    this.claimMs = this.leased ? (options.claimLeaseMs ?? 10_000) : (options.claimTtlMs ?? 15 * 60_000);
    this.waitMs = options.waitMs ?? 10_000;
    this.pollMs = options.pollMs ?? 100;
    this.finishRetryMs = options.finishRetryMs ?? 60_000;
    this.places = options.places ?? new ProcessPlaces();
    this.maxPerUser = options.maxPerUser ?? MAX_KEYS_PER_USER;
    this.kind = options.kind ?? IDEMPOTENCY_KEYS;
  }

  async run(
    userId: string,
    key: string,
    fingerprint: string,
    send: () => Promise<DispatchResult>,
    signal?: AbortSignal,
  ): Promise<ToolOutcome> {
    const id = createHash('sha256').update(`${userId}\u0000${key}`).digest('base64url');
    const running = this.local.get(id);
    if (running) return running.fingerprint === fingerprint ? running.outcome : this.kind.conflict();
    const entry = { fingerprint, outcome: this.settle(userId, id, fingerprint, send, signal) };
    this.local.set(id, entry);
    try {
      return await entry.outcome;
    } finally {
      if (this.local.get(id) === entry) this.local.delete(id);
    }
  }

  private async settle(
    userId: string,
    id: string,
    fingerprint: string,
    send: () => Promise<DispatchResult>,
    signal?: AbortSignal,
  ): Promise<ToolOutcome> {
    const name = this.kind.name;
    const keys = { claim: `${name}-claim:${id}`, attempt: `${name}-attempt:${id}` };
    const started = Date.now();
    let waited = false;
    const done = <T>(value: T): T => {
      if (waited) this.options.onWaited?.(Date.now() - started);
      return value;
    };
    for (;;) {
      const known = await this.known(id, keys, fingerprint);
      if (known.kind === 'outcome') return done(known.outcome);
      if (known.kind === 'running') {
        waited = true;
        if (Date.now() - started >= this.waitMs) return done(this.kind.inProgress(Date.now() - started));
        await sleep(this.pollMs, undefined, { signal });
        continue;
      }
      const marker = `${fingerprint} ${BOOT} ${randomBytes(8).toString('hex')}`;
      if (!(await this.records.add(keys.claim, marker, this.claimMs, { userId }))) continue;
      done(undefined);
      // A call that finished between the look and the claim stored its outcome before it let go.
      const stored = await this.stored(id).catch(async (e) => {
        await this.records.removeIf(keys.claim, marker).catch(() => {});
        throw e;
      });
      if (stored) {
        await this.records.removeIf(keys.claim, marker).catch(() => {});
        return stored.fingerprint === fingerprint ? stored.outcome : this.kind.conflict();
      }
      const placed = await this.places
        .take(name, userId, id, this.maxPerUser, this.options.ttlMs)
        .catch(async (e) => {
          await this.records.removeIf(keys.claim, marker).catch(() => {});
          throw e;
        });
      if (!placed) {
        await this.records.removeIf(keys.claim, marker).catch(() => {});
        return this.kind.tooMany(this.maxPerUser, this.places.scope, this.options.ttlMs);
      }
      const giveBack = () => this.places.giveBack(name, userId, id).catch(() => {});
      const sent = await this.sendClaimed(userId, id, keys, marker, fingerprint, send).catch(
        async (e: unknown) => {
          await giveBack();
          throw e;
        },
      );
      if (!sent.stored) await giveBack();
      return sent.outcome;
    }
  }

  /**
   * What the store says of a key. Read in the order the holder writes (claim, attempt,
   * outcome) reversed, so that an attempt seen without its claim means the holder stopped.
   */
  private async known(
    id: string,
    keys: { claim: string; attempt: string },
    fingerprint: string,
  ): Promise<Known> {
    const answer = (s: StoredOutcome): Known => ({
      kind: 'outcome',
      outcome: s.fingerprint === fingerprint ? s.outcome : this.kind.conflict(),
    });
    const stored = await this.stored(id);
    if (stored) return answer(stored);
    const attempt = await this.records.get(keys.attempt);
    const held = await this.records.get(keys.claim);
    if (held !== undefined) {
      if (held.split(' ')[0] !== fingerprint) return { kind: 'outcome', outcome: this.kind.conflict() };
      if (this.holderAlive(held)) return { kind: 'running' };
      // A previous run of this process held it (memory or its own file): it is gone.
      await this.records.removeIf(keys.claim, held);
    }
    if (attempt === undefined) return { kind: 'free' };
    // The holder stores its outcome before dropping its attempt: look once more.
    const late = await this.stored(id);
    if (late) return answer(late);
    if (attempt.split(' ')[0] !== fingerprint) return { kind: 'outcome', outcome: this.kind.conflict() };
    return { kind: 'outcome', outcome: this.kind.outcomeUnknown() };
  }

  private holderAlive(marker: string): boolean {
    // A shared store's claim lives only while its holder renews it.
    return this.leased || marker.split(' ')[1] === BOOT;
  }

  private async sendClaimed(
    userId: string,
    id: string,
    keys: { claim: string; attempt: string },
    marker: string,
    fingerprint: string,
    send: () => Promise<DispatchResult>,
  ): Promise<{ outcome: ToolOutcome; stored: boolean }> {
    const lease = this.renewWhileRunning(keys.claim, marker);
    const release = [
      () => this.records.removeIf(keys.attempt, marker),
      () => this.records.removeIf(keys.claim, marker),
    ];
    let result: DispatchResult;
    try {
      await this.records.put(keys.attempt, marker, this.options.ttlMs, { userId, afterSend: true });
      result = await send();
    } catch (e) {
      await this.finish(release, lease);
      throw e;
    }
    const steps = result.reachedUpstream
      ? [
          () =>
            this.records.put(
              `${this.kind.name}:${id}`,
              this.codec.encode({ fingerprint, outcome: result.outcome }, `${this.kind.name}:${id}`),
              this.options.ttlMs,
              { userId, afterSend: true },
            ),
          ...release,
        ]
      : release;
    await this.finish(steps, lease);
    return { outcome: result.outcome, stored: result.reachedUpstream };
  }

  /**
   * Runs the store steps that end a call, in order. A store that refuses (Redis away) leaves
   * the rest to be retried in the background while the claim is still renewed, so that a
   * retry meanwhile waits (or is told `idempotency_in_progress`) and later gets the stored
   * outcome: the caller has its outcome already, and nothing is sent twice.
   */
  private async finish(steps: (() => Promise<unknown>)[], lease: { stop(): void }): Promise<void> {
    try {
      while (steps.length > 0) {
        await steps[0]!();
        steps.shift();
      }
      lease.stop();
      return;
    } catch {
      // Retried below.
    }
    const deadline = Date.now() + this.finishRetryMs;
    const retry = (async () => {
      while (steps.length > 0 && Date.now() < deadline) {
        await sleep(Math.min(500, this.pollMs * 5));
        try {
          await steps[0]!();
          steps.shift();
        } catch {
          // Still away.
        }
      }
      lease.stop();
    })();
    this.pending.add(retry);
    void retry.finally(() => this.pending.delete(retry));
  }

  /** Store steps still running in the background (awaited by `drain`). */
  private readonly pending = new Set<Promise<void>>();

  /** Waits for outcomes still being stored (at shutdown, and in tests). */
  async drain(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private renewWhileRunning(claimKey: string, marker: string): { stop(): void } {
    const renewIf = this.records.renewIf?.bind(this.records);
    if (!renewIf) return { stop() {} };
    const timer = setInterval(() => {
      // A renewal that fails (Redis away) lets the lease end: the attempt record then keeps
      // any retry from sending again.
      renewIf(claimKey, marker, this.claimMs).catch(() => {});
    }, this.claimMs / 3);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  }

  private async stored(id: string): Promise<StoredOutcome | undefined> {
    const key = `${this.kind.name}:${id}`;
    const text = await this.records.get(key);
    return text === undefined ? undefined : (this.codec.decode(text, key) as StoredOutcome);
  }
}
