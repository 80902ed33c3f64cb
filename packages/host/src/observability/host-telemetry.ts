import type { EngineObserver } from '@toolhost/engine';
import type { CallInstruments } from './call-instruments.js';

/** The content type of `HostTelemetry.metricsText()` (Prometheus text exposition 0.0.4). */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * The host's traces and metrics. The instruments (prom-client and the OpenTelemetry API,
 * together about 100 ms of module loading) load with the HTTP client, when the host warms or
 * at the first call, so that a host that only lists tools never pays for them. Everything
 * worth counting happens inside a call, after they have loaded.
 */
export class HostTelemetry {
  private instruments?: CallInstruments;
  private loading?: Promise<CallInstruments>;

  /** `userIdKey`: the secret that user ids in traces are hashed under. */
  constructor(private readonly userIdKey: Buffer) {}

  /** The instruments, once loaded (synchronous for every call after the first). */
  get loaded(): CallInstruments | undefined {
    return this.instruments;
  }

  load(): Promise<CallInstruments> {
    this.loading ??= import('./call-instruments.js').then(({ CallInstruments }) => {
      this.instruments = new CallInstruments(this.userIdKey);
      return this.instruments;
    });
    return this.loading;
  }

  /** What the engine reports, passed on to the instruments. */
  readonly observer: EngineObserver = {
    upstreamResponse: (call, tool, status, ms) =>
      this.instruments?.upstreamResponse(call, tool.toolSet.toolSet, status, ms),
    rateLimitWait: (call, tool, kind, ms) =>
      this.instruments?.rateLimitWait(call, tool.toolSet.toolSet, kind, ms),
  };

  tokenRefresh(provider: string, outcome: 'ok' | 'reauthorize' | 'failed'): void {
    void this.load().then((i) => i.tokenRefresh(provider, outcome));
  }

  /** The counters in Prometheus text format. */
  async metricsText(): Promise<string> {
    return (await this.load()).registry.metrics();
  }
}
