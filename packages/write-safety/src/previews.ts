import { randomBytes } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type RequestPreview, ToolError, type ToolOutcome } from '@toolhost/core';
import type { PreparedRequest } from '@toolhost/engine';
import type { ExpiringRecords } from './expiring-records.js';
import { type PerUserPlaces, ProcessPlaces } from './per-user-budget.js';
import type { RecordCodec } from './record-codec.js';

/** Previews one user may have waiting on one host (or on all replicas sharing a store). */
export const MAX_PREVIEWS_PER_USER = 100;

export const REDACTED = '[redacted]';

/**
 * What is kept of a preview: the request to send, and the preview's name, tool and expiry. The
 * request as shown (`describeRequest(prepared)`) is not kept beside it: it was answered when the
 * preview was made, and applying sends `prepared`, so a request near the size limit is written
 * once, not twice.
 */
interface PreviewRecord {
  userId: string;
  prepared: PreparedRequest;
  preview: Omit<RequestPreview, 'request'>;
}

/** A preview claimed for its one send; `release` gives it back when nothing was sent. */
export interface ClaimedPreview {
  prepared: PreparedRequest;
  release(): Promise<void>;
}

function failure(code: 'preview_not_found' | 'preview_used' | 'preview_expired', message: string) {
  return { ok: false, error: { code, message, retryable: false } } satisfies ToolOutcome;
}

/** The request as a person or agent reads it: the credential's header shown, its value never. */
export function describeRequest(prepared: PreparedRequest): RequestPreview['request'] {
  const { method, url, headers, body } = prepared.http;
  const shown = {
    ...headers,
    ...(prepared.credentialHeader ? { [prepared.credentialHeader]: REDACTED } : {}),
  };
  let parsed: unknown = body;
  if (body !== undefined && /json/i.test(headers['content-type'] ?? '')) {
    try {
      parsed = JSON.parse(body);
    } catch {
      // Shown as sent.
    }
  }
  return { method, url, headers: shown, ...(body !== undefined ? { body: parsed } : {}) };
}

/**
 * Previewed requests, each sendable once by the user who made it until it expires. Kept for
 * twice their life, so that a late apply is told `preview_expired` rather than not found.
 */
export class Previews {
  constructor(
    private readonly records: ExpiringRecords,
    private readonly codec: RecordCodec,
    readonly ttlMs: number,
    private readonly maxPerUser = MAX_PREVIEWS_PER_USER,
    /** Where each user's previews are counted: the shared store's places with replicas. */
    private readonly places: PerUserPlaces = new ProcessPlaces(),
  ) {}

  async create(userId: string, prepared: PreparedRequest): Promise<RequestPreview> {
    const id = `pv_${randomBytes(16).toString('base64url')}`;
    if (!(await this.places.take('previews', userId, id, this.maxPerUser, 2 * this.ttlMs)))
      throw new ToolError({
        code: 'store_unavailable',
        retryable: true,
        message: `You have ${this.maxPerUser} previews kept, the most one user may have ${this.places.scope} (tools.previewsPerUser): apply the ones you need, or wait for them to expire (each is kept ${(2 * this.ttlMs) / 1000} s). Nothing was sent.`,
      });
    const kept = {
      preview_id: id,
      tool: prepared.tool,
      expires_at: new Date(Date.now() + this.ttlMs).toISOString(),
    };
    const record: PreviewRecord = { userId, prepared, preview: kept };
    // The record is written, and the answer then written out, each in a turn of its own (the
    // request is built in one too: WriteSafety.preview): for a body near the size limit,
    // reading it, building the request, writing its record and writing the answer are each tens
    // of milliseconds of CPU, and other clients' requests are answered in between (the longest
    // hold on the host's event loop for a 4 MB path parameter, idle: 70-90 ms with the request
    // kept twice and built in the reading turn, 40-55 ms now).
    await nextTurn();
    try {
      await this.records.put(`preview:${id}`, this.codec.encode(record, `preview:${id}`), 2 * this.ttlMs, {
        userId,
      });
    } catch (e) {
      await this.places.giveBack('previews', userId, id).catch(() => {});
      throw e;
    }
    await nextTurn();
    return { ...kept, request: describeRequest(prepared) };
  }

  /** The preview for its one send, or why it cannot be sent (another user's is not found). */
  async claim(userId: string, id: string): Promise<ClaimedPreview | { refused: ToolOutcome }> {
    const text = await this.records.get(`preview:${id}`);
    const record =
      text === undefined ? undefined : (this.codec.decode(text, `preview:${id}`) as PreviewRecord);
    if (!record || record.userId !== userId)
      return {
        refused: failure('preview_not_found', `No preview '${id}' (previews last ${this.ttlMs / 1000} s).`),
      };
    if (Date.parse(record.preview.expires_at) <= Date.now())
      return {
        refused: failure(
          'preview_expired',
          `Preview '${id}' expired at ${record.preview.expires_at}; preview the call again.`,
        ),
      };
    const holder = randomBytes(8).toString('hex');
    const key = `preview-sent:${id}`;
    if (!(await this.records.add(key, holder, 2 * this.ttlMs, { userId, afterSend: true })))
      return {
        refused: failure(
          'preview_used',
          `Preview '${id}' was applied already; its request is not sent again.`,
        ),
      };
    return {
      prepared: record.prepared,
      // Nothing was sent: a mark left (the store away) would refuse every apply as done.
      release: () =>
        this.records.removeIf(key, holder).catch((e: unknown) => {
          if (!this.records.removeWhenBack) throw e;
          this.records.removeWhenBack(key, holder, 2 * this.ttlMs);
        }),
    };
  }
}
