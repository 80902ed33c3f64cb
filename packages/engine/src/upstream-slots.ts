import type { CallSignal } from '@toolhost/core';
import { ConcurrencyLimit } from './concurrency-limit.js';
import { ENGINE_DEFAULTS } from './engine-defaults.js';
import type { ToolRegistry } from './registry.js';

/**
 * The slots upstream requests take: the host's, and each upstream origin's (scheme, host and
 * port) share of them, so that calls piling up behind one slow upstream leave the others theirs.
 */
export class UpstreamSlots {
  private readonly host: ConcurrencyLimit;
  /** Slots per upstream origin, and the origin of each base URL (parsed once). */
  private readonly perUpstream = new Map<string, ConcurrencyLimit>();
  private readonly origins = new Map<string, string>();

  /** `perUpstreamLimit` as set; otherwise decided from the registry at the first send. */
  constructor(
    private readonly registry: ToolRegistry,
    hostLimit: number,
    private perUpstreamLimit: number | undefined,
  ) {
    this.host = new ConcurrencyLimit(hostLimit);
  }

  /**
   * Runs `send` once a slot of `baseUrl`'s upstream and then one of the host's is free, waiting
   * at most `timeoutMs` for both. Waiting for the upstream's own slot first means calls queued
   * behind a slow upstream hold none of the slots other upstreams need. Throws if `baseUrl` is
   * no URL.
   */
  run<T>(
    baseUrl: string,
    send: () => Promise<T>,
    signal: CallSignal | undefined,
    timeoutMs: number,
  ): Promise<T> {
    const origin = this.originOf(baseUrl);
    let upstream = this.perUpstream.get(origin);
    if (!upstream) {
      this.perUpstreamLimit ??= this.defaultPerUpstreamLimit();
      upstream = new ConcurrencyLimit(this.perUpstreamLimit);
      this.perUpstream.set(origin, upstream);
    }
    const deadline = Date.now() + timeoutMs;
    return upstream.run(
      () => this.host.run(send, signal, Math.max(0, deadline - Date.now())),
      signal,
      timeoutMs,
    );
  }

  /** A base URL's origin (scheme, host, port), parsed once per base URL; throws if it is no URL. */
  private originOf(baseUrl: string): string {
    let origin = this.origins.get(baseUrl);
    if (origin === undefined) {
      origin = new URL(baseUrl).origin;
      this.origins.set(baseUrl, origin);
    }
    return origin;
  }

  /**
   * The slots one upstream may hold when none are set: a share of the host's (32 by default)
   * keeps the rest for the other upstreams; where every tool reaches the same upstream there are
   * no others to keep slots for, and a share would only leave half of the host's slots unused
   * under load.
   */
  private defaultPerUpstreamLimit(): number {
    const origins = new Set<string>();
    for (const tool of this.registry.list()) {
      try {
        origins.add(this.originOf(tool.baseUrl));
      } catch {
        // A base URL that does not parse fails its own calls; it is no upstream of its own.
      }
      if (origins.size > 1) return ENGINE_DEFAULTS.maxConcurrentRequestsPerUpstream;
    }
    return this.host.limit;
  }
}
