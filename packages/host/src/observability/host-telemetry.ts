import type { RefreshOutcome } from '@toolhost/credentials';
import type { EngineObserver } from '@toolhost/engine';
import type { CallInstruments } from './call-instruments.js';
import type { GaugeSource, StateGauges, WaitKind } from './state-gauges.js';

/** The content type of `HostTelemetry.metricsText()` (Prometheus text exposition 0.0.4). */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Where `@opentelemetry/api` (1.x) keeps what an SDK registers: present once one is set up. */
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');

/** Whether an OpenTelemetry SDK (or anything using the API) is set up in this process. */
export function otelRegistered(): boolean {
  return OTEL_GLOBAL in globalThis;
}

/**
 * The host's traces and metrics. The instruments (prom-client and the OpenTelemetry API,
 * together about 100 ms of module loading) load only when something reads them: an
 * OpenTelemetry SDK set up in the process, `/metrics` (the HTTP server says so as it starts),
 * or `host.metrics()`. A stdio host for a desktop client, which has none of these, never loads
 * them. Once wanted they load when the host warms (after its first `tools/list` answer, so that
 * the start is not held back by them) or at the first call or scrape before that, which waits
 * for them: every call is counted.
 */
export class HostTelemetry {
  private instruments?: CallInstruments;
  private loading?: Promise<CallInstruments>;
  private counting = false;

  /** `userIdKey`: the secret that user ids in traces are hashed under. */
  constructor(private readonly userIdKey: Buffer) {}

  /** The instruments, once loaded (synchronous for every call after the first). */
  get loaded(): CallInstruments | undefined {
    return this.instruments;
  }

  /** Whether anything reads traces or metrics: only then are the instruments worth loading. */
  get wanted(): boolean {
    return this.counting || this.loading !== undefined || otelRegistered();
  }

  /** Something reads the counters from now on (`/metrics`): every call is counted, loading them first. */
  countCalls(): void {
    this.counting = true;
  }

  load(): Promise<CallInstruments> {
    this.loading ??= Promise.all([import('./call-instruments.js'), import('./state-gauges.js')]).then(
      ([{ CallInstruments }, { StateGauges }]) => {
        const instruments = new CallInstruments(this.userIdKey);
        this.gauges = new StateGauges(instruments.registry);
        for (const source of this.sources) this.gauges.add(source);
        this.instruments = instruments;
        return instruments;
      },
    );
    return this.loading;
  }

  private gauges?: StateGauges;
  private readonly sources: GaugeSource[] = [];

  /** A state shown as a gauge on `/metrics`, read at each scrape. */
  gauge(source: GaugeSource): void {
    this.sources.push(source);
    this.gauges?.add(source);
  }

  /** A call waited `ms` on state shared by replicas. */
  waited(kind: WaitKind, ms: number): void {
    if (this.gauges) this.gauges.waited(kind, ms);
    else void this.load().then(() => this.gauges?.waited(kind, ms));
  }

  /** What the engine reports, passed on to the instruments. */
  readonly observer: EngineObserver = {
    upstreamResponse: (call, tool, status, ms) =>
      this.instruments?.upstreamResponse(call, tool.toolSet, status, ms),
    rateLimitWait: (call, tool, kind, ms) => this.instruments?.rateLimitWait(call, tool.toolSet, kind, ms),
  };

  tokenRefresh(provider: string, outcome: RefreshOutcome): void {
    if (this.wanted) void this.load().then((i) => i.tokenRefresh(provider, outcome));
  }

  /** The counters in Prometheus text format. */
  async metricsText(): Promise<string> {
    return (await this.load()).registry.metrics();
  }
}
