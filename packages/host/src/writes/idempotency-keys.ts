import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ToolOutcome } from '@toolhost/core';
import type { DispatchResult } from '@toolhost/engine';
import stringify from 'safe-stable-stringify';
import type { ExpiringRecords } from './expiring-records.js';
import type { RecordCodec } from './record-codec.js';

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

export interface IdempotencyOptions {
  /** How long a key answers its stored outcome. */
  ttlMs: number;
  /**
   * How long a claim holds while its request is in flight: a replica that dies mid-call frees
   * its keys after this (its request may have reached the upstream; that is the one window in
   * which a retry can send twice).
   */
  claimTtlMs?: number;
  /** How often a caller on another replica looks whether the key's request has finished. */
  pollMs?: number;
}

/**
 * Idempotency keys, per user: the first call with a key sends; while it runs, the others with
 * the same key wait for it (in this process on its promise, on other replicas by polling the
 * shared claim); afterwards they get its stored outcome. Outcomes whose request certainly
 * never reached the upstream are not stored: the key is free again.
 */
export class IdempotencyKeys {
  private readonly local = new Map<string, { fingerprint: string; outcome: Promise<ToolOutcome> }>();
  private readonly claimTtlMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly records: ExpiringRecords,
    private readonly codec: RecordCodec,
    private readonly options: IdempotencyOptions,
  ) {
    // Longer than a person's confirmation (10 min) plus the engine's timeouts and retries.
    this.claimTtlMs = options.claimTtlMs ?? 15 * 60_000;
    this.pollMs = options.pollMs ?? 100;
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
    if (running) return running.fingerprint === fingerprint ? running.outcome : conflict();
    const entry = { fingerprint, outcome: this.settle(id, fingerprint, send, signal) };
    this.local.set(id, entry);
    try {
      return await entry.outcome;
    } finally {
      if (this.local.get(id) === entry) this.local.delete(id);
    }
  }

  private async settle(
    id: string,
    fingerprint: string,
    send: () => Promise<DispatchResult>,
    signal?: AbortSignal,
  ): Promise<ToolOutcome> {
    const claimKey = `idempotency-claim:${id}`;
    for (;;) {
      const stored = await this.stored(id);
      if (stored) return stored.fingerprint === fingerprint ? stored.outcome : conflict();
      const marker = `${fingerprint} ${randomBytes(8).toString('hex')}`;
      if (await this.records.add(claimKey, marker, this.claimTtlMs)) {
        return this.sendClaimed(id, claimKey, marker, fingerprint, send);
      }
      const held = await this.records.get(claimKey);
      if (held === undefined) continue;
      if (held.split(' ')[0] !== fingerprint) return conflict();
      await this.awaitOther(id, claimKey, signal);
    }
  }

  private async sendClaimed(
    id: string,
    claimKey: string,
    marker: string,
    fingerprint: string,
    send: () => Promise<DispatchResult>,
  ): Promise<ToolOutcome> {
    let result: DispatchResult;
    try {
      result = await send();
    } catch (e) {
      await this.records.removeIf(claimKey, marker).catch(() => {});
      throw e;
    }
    if (result.reachedUpstream) {
      const stored: StoredOutcome = { fingerprint, outcome: result.outcome };
      try {
        await this.records.put(
          `idempotency:${id}`,
          this.codec.encode(stored, `idempotency:${id}`),
          this.options.ttlMs,
        );
      } catch {
        // The store is away: the caller still gets the real outcome, and the claim is left
        // to expire, so that retries meanwhile wait rather than send the write again.
        return result.outcome;
      }
    }
    await this.records.removeIf(claimKey, marker).catch(() => {});
    return result.outcome;
  }

  /** Until the call holding the key elsewhere has stored its outcome or given the key back. */
  private async awaitOther(id: string, claimKey: string, signal?: AbortSignal): Promise<void> {
    for (;;) {
      if (await this.stored(id)) return;
      if ((await this.records.get(claimKey)) === undefined) return;
      await sleep(this.pollMs, undefined, { signal });
    }
  }

  private async stored(id: string): Promise<StoredOutcome | undefined> {
    const text = await this.records.get(`idempotency:${id}`);
    return text === undefined ? undefined : (this.codec.decode(text, `idempotency:${id}`) as StoredOutcome);
  }
}
