import { createHash } from 'node:crypto';
import type { CallContext } from '@toolhost/core';
import type { Credential } from './call-credentials.js';
import type { EngineObserver } from './engine-options.js';
import { Pacer, type PacerFactory, type RequestPacer } from './pacer.js';
import type { RegisteredTool } from './registry.js';

/**
 * The longest pacing key kept as it is. Ids are a few dozen characters at most (an Airtable
 * base id is 17); the value is the caller's, up to the request body's size, and a pacer keeps
 * its last thousand keys (and the shared one a Redis key each): a longer one goes by its digest.
 */
const MAX_KEY_CHARS = 64;

const bounded = (key: string) =>
  key.length > MAX_KEY_CHARS ? `sha256:${createHash('sha256').update(key).digest('base64url')}` : key;

/** Paces each tool set's requests at its declared rate, in buckets its pacing policy names. */
export class CallPacing {
  private readonly pacers = new Map<string, RequestPacer>();

  /** `warm` loads the sender's HTTP client: the last wait before a request leaves is pacing's. */
  constructor(
    private readonly factory: PacerFactory | undefined,
    private readonly observer: EngineObserver | undefined,
    private readonly warm: () => Promise<void>,
  ) {}

  /**
   * The bucket a call is paced in: the value of the tool set's pacing parameter (tools
   * without it share one bucket), or the connection its credential acts for.
   */
  keyOf(tool: RegisteredTool, args: Record<string, unknown>, credential: Credential | undefined): string {
    const pacing = tool.toolSetDefinition.traffic?.pacing;
    if (!pacing) return '';
    if ('per' in pacing) return bounded(credential?.connection ?? '');
    const keyParam = tool.declaration.params?.find((p) => (p.apiName ?? p.name) === pacing.key);
    return keyParam ? bounded(String(args[keyParam.name] ?? '')) : '';
  }

  /**
   * Waits for the call's pacing slot, telling the call's listener and the observer of the wait.
   * `departed` settles once the request has left or was given up (see `RequestPacer`).
   */
  async wait(
    tool: RegisteredTool,
    key: string,
    context: CallContext,
    departed?: Promise<void>,
  ): Promise<void> {
    const pacing = tool.toolSetDefinition.traffic?.pacing;
    if (!pacing) return;
    // Pacing comes after the sender's first load: requests released while the sender loads
    // its HTTP client (hundreds of ms) would otherwise leave together. (A wait for a free slot
    // can still come after it: the pacer is told when each request left, `departed`.)
    await this.warm();
    // A connection's limit is the vendor account's, whichever tool set calls it (HubSpot's
    // three tool sets share one app's limit per account): tool sets paced per connection at
    // the same rate share one pacer, whose keys name the auth provider.
    const name = 'per' in pacing ? `connection@${pacing.requestsPerSecond}` : tool.toolSet;
    let pacer = this.pacers.get(name);
    if (!pacer) {
      pacer = this.factory
        ? this.factory(name, pacing.requestsPerSecond)
        : new Pacer(pacing.requestsPerSecond);
      this.pacers.set(name, pacer);
    }
    // How long is known only once the slot comes: the listener hears of the wait as it starts.
    const ended = context.onWait?.('pacing', undefined);
    let waited: number | undefined;
    try {
      waited = await pacer.wait(key, context.signal, departed);
    } finally {
      // The pacer's own figure where it has one: a slot given at once is no wait, however
      // long the round trip to a shared pacer took.
      ended?.(waited);
    }
    if (waited && waited > 0) this.observer?.rateLimitWait?.(context, tool, 'pacing', waited);
  }
}
