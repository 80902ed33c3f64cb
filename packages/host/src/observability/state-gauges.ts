import { collectDefaultMetrics, Gauge, Histogram, type Registry } from 'prom-client';

/** A state read at each scrape: one value, or one per label value. */
export type GaugeReading = number | Readonly<Record<string, number>>;

export interface GaugeSource {
  name: string;
  help: string;
  /** The label of a reading per value (e.g. `pacer`). */
  label?: string;
  read: () => GaugeReading;
}

/** Where shared state made a call wait: the refresh lock, another replica's idempotency claim. */
export type WaitKind = 'refresh_lock' | 'idempotency_claim';

/**
 * What an operator watches besides the calls: the process (prom-client's default metrics:
 * CPU, memory, event-loop lag, handles), states read at each scrape (Redis reachable, pacing
 * degraded, open sessions), and how long calls waited on shared state.
 */
export class StateGauges {
  private readonly registered = new Set<string>();
  private readonly waits: Histogram<'kind'>;

  constructor(private readonly registry: Registry) {
    collectDefaultMetrics({ register: registry });
    this.waits = new Histogram({
      name: 'toolhost_shared_wait_seconds',
      help: 'Time calls waited on state shared by replicas (refresh lock, idempotency claims held elsewhere).',
      labelNames: ['kind'],
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
  }

  add(source: GaugeSource): void {
    if (this.registered.has(source.name)) return;
    this.registered.add(source.name);
    new Gauge({
      name: source.name,
      help: source.help,
      labelNames: source.label ? [source.label] : [],
      registers: [this.registry],
      collect() {
        const reading = source.read();
        if (typeof reading === 'number') this.set(reading);
        else {
          this.reset();
          for (const [value, n] of Object.entries(reading)) this.set({ [source.label ?? 'name']: value }, n);
        }
      },
    });
  }

  waited(kind: WaitKind, ms: number): void {
    this.waits.observe({ kind }, ms / 1000);
  }
}
