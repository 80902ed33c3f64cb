import { setImmediate as nextTurn } from 'node:timers/promises';
import { type RequestPreview, ToolError, type ToolOutcome } from '@toolhost/core';
import type { DispatchResult, PreparedRequest, ToolEngine } from '@toolhost/engine';
import { plainArguments } from '@toolhost/engine/internal';
import { askPerson, type ConfirmWrite, NobodyToAsk } from './ask-person.js';
import { CONFIRMED_CALL_TTL_MS } from './confirmed-call-ttl.js';
import { CONFIRMED_CALLS } from './confirmed-calls.js';
import { type ExpiringRecords, MemoryRecords } from './expiring-records.js';
import { FileRecords } from './file-records.js';
import { callFingerprint, IdempotencyKeys, refusedKey } from './idempotency-keys.js';
import { type PerUserPlaces, ProcessPlaces } from './per-user-budget.js';
import type { CallRunner, RunningCall, WriteSafetySettings } from './ports.js';
import { type ClaimedPreview, describeRequest, Previews } from './previews.js';
import { plainRecords, type RecordCodec, type Sealer, sealedRecords } from './record-codec.js';

export type { ConfirmWrite } from './ask-person.js';

/** One write call; `Wait` is the host's observer of the call's waits. */
export interface WriteCallOptions<Wait = unknown> {
  userId: string;
  signal?: AbortSignal;
  /** Sends at most once per user and key; the same key again answers the first outcome. */
  idempotencyKey?: string;
  /**
   * The confirmation this call carries (MCP 2026-07-28): sent at most once per user and
   * confirmation, as with a key; the same confirmation again answers the first outcome.
   */
  confirmationId?: string;
  /** How to ask the person, where the client can be asked (tools.confirmWrites). */
  confirm?: ConfirmWrite;
  /** Hears of the waits the call goes through (MCP progress and log notifications). */
  onWait?: Wait;
  /** Which tools' previews may be applied (the request's narrowing), and what hides the rest. */
  applyOnly?: { tools: ReadonlySet<string>; hiddenBy: string };
}

/** What a preview answers: the request that would be sent, or the outcome already (a schema, an error). */
export type PreviewOutcome = { ok: true; kind: 'preview'; preview: RequestPreview } | ToolOutcome;

const notSent = (outcome: ToolOutcome): DispatchResult => ({ outcome, reachedUpstream: false });

function cancelled(message: string, retryable = false): ToolOutcome {
  return { ok: false, error: { code: 'cancelled', message, retryable } };
}

/** A store that failed (ToolError) or a wait that was cancelled, as the caller's outcome. */
function asOutcome(e: unknown): ToolOutcome {
  if (ToolError.isInstance(e)) return { ok: false, error: e.info };
  if (e instanceof Error && e.name === 'AbortError') return cancelled('The call was cancelled.');
  throw e;
}

/**
 * The write safety of every tool that is not read-only: previews sent later exactly as shown,
 * confirmation by a person before sending, idempotency keys. Read-only tools never come here.
 */
export class WriteSafety<Wait = unknown> {
  constructor(
    private readonly records: ExpiringRecords,
    private readonly calls: CallRunner<Wait>,
    private readonly engine: ToolEngine,
    private readonly previews: Previews,
    private readonly keys: IdempotencyKeys,
    readonly confirmWrites: boolean,
    /** The calls confirmed by a person's answer to a round trip, each sent once (confirmed-calls.ts). */
    private readonly confirmed: IdempotencyKeys,
  ) {}

  /** Waits for records still being written (the file store), at shutdown. */
  async flush(): Promise<void> {
    await Promise.all([this.keys.drain(), this.confirmed.drain()]);
    await this.records.flush?.();
  }

  /** A direct call of a write tool. */
  async call(name: string, raw: unknown, o: WriteCallOptions<Wait>): Promise<ToolOutcome> {
    // Read once, here: the key is checked against the very arguments that are sent (a getter
    // could answer otherwise each time), and one that cannot be read is refused, not thrown.
    // The engine takes this copy as it is (frozen, it cannot change), without copying it again.
    // More arguments than the tool has parameters: refused whatever they hold, so neither copied
    // nor fingerprinted whole first (100,000 made-up keys cost about a second there); the refusal
    // goes the way of any other (the key's checks, the call's log line, shutdown).
    const refused = this.engine.refusedOutright(name, raw);
    if (refused)
      return this.keyed(
        o,
        () => callFingerprint(name, { '': refused.ok ? '' : refused.error.message }),
        () => this.calls.within(name, o.userId, o.signal, async () => notSent(refused), o.onWait),
      );
    let args: Readonly<Record<string, unknown>>;
    try {
      args = plainArguments(raw);
    } catch (e) {
      return asOutcome(e);
    }
    return this.keyed(
      o,
      () => callFingerprint(name, args),
      () =>
        this.calls.within(
          name,
          o.userId,
          o.signal,
          async (context) => {
            if (!this.confirmWrites) return this.calls.callOnce(name, args, context);
            const prepared = this.engine.prepare(name, args);
            if (prepared.kind === 'outcome') return notSent(prepared.outcome);
            return this.confirmThenSend(prepared.request, o, context, true);
          },
          o.onWait,
        ),
    );
  }

  /** The request a call would send, validated as the call would be, and kept for `apply`. */
  async preview(name: string, args: unknown, userId: string): Promise<PreviewOutcome> {
    // Built in a turn of its own, not in the one that read and parsed the request: see create.
    await nextTurn();
    const prepared = this.engine.prepare(name, args);
    if (prepared.kind === 'outcome') return prepared.outcome;
    try {
      return { ok: true, kind: 'preview', preview: await this.previews.create(userId, prepared.request) };
    } catch (e) {
      return asOutcome(e);
    }
  }

  /** Sends a previewed request, once; what a direct call would answer. */
  apply(previewId: string, o: WriteCallOptions<Wait>): Promise<ToolOutcome> {
    return this.keyed(
      o,
      () => callFingerprint('apply_preview', previewId),
      async () => {
        const claimed = await this.previews.claim(o.userId, previewId);
        if ('refused' in claimed) return notSent(claimed.refused);
        const tool = claimed.prepared.tool;
        if (o.applyOnly && !o.applyOnly.tools.has(tool)) {
          // Kept for a request that may send it: narrowing hides, it does not use up.
          await claimed.release();
          return notSent({
            ok: false,
            error: {
              code: 'unknown_tool',
              message: `Preview '${previewId}' is of ${tool}, which ${o.applyOnly.hiddenBy}; nothing was sent.`,
              retryable: false,
            },
          });
        }
        const result = await this.sendClaimed(claimed, o);
        // Nothing left (a missing credential, a declined confirmation): it can be applied again.
        if (!result.reachedUpstream) await claimed.release();
        return result;
      },
    );
  }

  private sendClaimed(claimed: ClaimedPreview, o: WriteCallOptions<Wait>): Promise<DispatchResult> {
    return this.calls.within(
      claimed.prepared.tool,
      o.userId,
      o.signal,
      (context) => this.confirmThenSend(claimed.prepared, o, context, false),
      o.onWait,
    );
  }

  /**
   * Asks the person where the client can be asked. A client that cannot gets the preview
   * instead (`confirmation_required`), to apply once the person agrees; applying it is then
   * the agreement, so an apply is held only where the client can ask.
   */
  private async confirmThenSend(
    prepared: PreparedRequest,
    o: WriteCallOptions<Wait>,
    // The call's own context, passed on as it is: observers match the send to the call by it.
    context: RunningCall,
    direct: boolean,
  ): Promise<DispatchResult> {
    if (this.confirmWrites && o.confirm) {
      const write = { tool: prepared.tool, request: describeRequest(prepared) };
      const agreed = await askPerson(o.confirm, write, context.signal);
      if (context.signal.aborted)
        return notSent(cancelled('The call was cancelled; nothing was sent.', true));
      if (NobodyToAsk.is(agreed))
        return notSent({
          ok: false,
          error: { code: 'confirmation_required', message: agreed.message, retryable: false },
        });
      if (!agreed) return notSent(cancelled('The person declined this request; nothing was sent.'));
    } else if (this.confirmWrites && direct) {
      const preview = await this.previews.create(o.userId, prepared);
      return notSent({
        ok: false,
        error: {
          code: 'confirmation_required',
          message: `This host asks a person before any write, and this client cannot ask: show the request to the person and, if they agree, call apply_preview with preview_id ${preview.preview_id}.`,
          retryable: false,
          preview,
        },
      });
    }
    return this.engine.dispatch(prepared, context);
  }

  private async keyed(
    o: WriteCallOptions<Wait>,
    // Computed only for a call with a key: most calls have none.
    fingerprint: () => string,
    attempt: () => Promise<DispatchResult>,
  ): Promise<ToolOutcome> {
    // An embedder's (over MCP the host checks its own names first).
    const bad =
      refusedKey('idempotencyKey', o.idempotencyKey) ?? refusedKey('confirmationId', o.confirmationId);
    if (bad) return bad;
    try {
      // A caller's key guards the call already, its confirmation included: one record set is enough.
      if (o.idempotencyKey !== undefined)
        return await this.keys.run(o.userId, o.idempotencyKey, fingerprint(), attempt, o.signal);
      if (o.confirmationId !== undefined)
        return await this.confirmed.run(o.userId, o.confirmationId, fingerprint(), attempt, o.signal);
      return (await attempt()).outcome;
    } catch (e) {
      return asOutcome(e);
    }
  }
}

/** What write safety takes of the store replicas share (the host's store/shared-store.ts gives it). */
export interface SharedWrites {
  readonly writeRecords: ExpiringRecords;
  /** Each user's previews and idempotency keys, counted across the replicas for their bounds. */
  readonly places: PerUserPlaces;
  readonly cipher: Sealer;
}

/** Where the host keeps its own encrypted files, and their key (TOOLHOST_TOKEN_KEY). */
export interface OwnFile {
  dataDir: string;
  key: string;
}

interface RecordsPlace {
  records: ExpiringRecords;
  codec: RecordCodec;
  /** Each user's places, counted where their records are (so that a restart keeps the count). */
  places: PerUserPlaces;
}

/**
 * Where previews and idempotency keys live, as tokens do: Redis when replicas share a store,
 * a sealed file beside the token file when the host keeps tokens there, else memory.
 */
function writeRecords(
  shared: SharedWrites | undefined,
  file: OwnFile | undefined,
  maxUserBytes: number | undefined,
): RecordsPlace {
  if (shared) {
    const { writeRecords: all, cipher, places } = shared;
    const records = maxUserBytes === undefined ? all : (all.perUserBytes?.(maxUserBytes) ?? all);
    return { records, codec: sealedRecords(cipher), places };
  }
  if (file) {
    // The whole file is sealed: each record needs no sealing of its own.
    const records = FileRecords.inDirectory(file.dataDir, file.key);
    return { records, codec: plainRecords, places: records };
  }
  return { records: new MemoryRecords(), codec: plainRecords, places: new ProcessPlaces() };
}

export interface WriteSafetyInput<Wait> {
  settings: WriteSafetySettings;
  calls: CallRunner<Wait>;
  engine: ToolEngine;
  shared: SharedWrites | undefined;
  /** The host's own encrypted files (TOOLHOST_TOKEN_KEY, no shared store, no embedder's token store). */
  file?: OwnFile | undefined;
  /** Told how long a call waited on its idempotency key held elsewhere. */
  onClaimWaited?: (ms: number) => void;
}

export function createWriteSafety<Wait>(input: WriteSafetyInput<Wait>): WriteSafety<Wait> {
  const tools = input.settings;
  const { records, codec, places } = writeRecords(input.shared, input.file, tools.writeRecordBytesPerUser);
  const keyed = {
    maxPerUser: tools.idempotencyKeysPerUser,
    places,
    claimLeaseMs: tools.idempotencyClaimSeconds * 1000,
    waitMs: tools.idempotencyWaitSeconds * 1000,
    ...(input.onClaimWaited ? { onWaited: input.onClaimWaited } : {}),
  };
  return new WriteSafety(
    records,
    input.calls,
    input.engine,
    new Previews(records, codec, tools.previewTtlSeconds * 1000, tools.previewsPerUser, places),
    new IdempotencyKeys(records, codec, { ...keyed, ttlMs: tools.idempotencyTtlSeconds * 1000 }),
    tools.confirmWrites,
    new IdempotencyKeys(records, codec, { ...keyed, ttlMs: CONFIRMED_CALL_TTL_MS, kind: CONFIRMED_CALLS }),
  );
}
