// The shape of results/latest.json, which bench.mjs fills in phase by phase and report.mjs and
// targets.mjs read. Types only: the bench itself is plain JavaScript, type-checked (tsconfig.json).
import type { measureDiscovery, measureResultSize } from './agents.mjs';
import type { catalogCost } from './catalog-cost.mjs';
import type { machine } from './report.mjs';
import type { Counts, Phase } from './rounds.mjs';
import type { measureSessionChurn } from './session-churn.mjs';
import type { measureStoreCost } from './store-cost.mjs';

export type CatalogCost = ReturnType<typeof catalogCost>;
export type Discovery = Awaited<ReturnType<typeof measureDiscovery>>;
export type ResultSizeRow = Awaited<ReturnType<typeof measureResultSize>>[number];

/** One server's summaries per concurrency, for every server measured over a transport. */
export interface TransportPhases {
  direct: Phase[];
  bare: Phase[];
  /** The host answering the session era (`initialize`, MCP 2025-11-25), as the floor and the peer do. */
  host: Phase[];
  /** The host answering MCP 2026-07-28 (no session; the v2 client). */
  hostStateless?: Phase[];
  peer: Phase[];
}

export interface EmbeddingPhases {
  direct: Phase[];
  host: (Phase & { cpuUsOverDirect?: number })[];
}

export interface ColdStart {
  medianMs: number;
  minMs: number;
  runs: number;
  /** Median resident memory right after the first tools/list answer (Linux), MB. */
  rssMb?: number;
  /** Median CPU time the server used up to its first answer (Linux, 10 ms ticks), ms. */
  cpuMs?: number;
  /**
   * Median over runs of this server's start minus the bare SDK server's in the same run: pairs
   * taken seconds apart, so load on a shared machine falls on both.
   */
  overBarePairedMs?: number;
}

export interface Memory {
  host: {
    rssAfterStartMb: number | undefined;
    rssAfterWarmupMb: number | undefined;
    warmupCalls: number;
    rssAfterCallsMb: number | undefined;
    calls: number;
    growthMb?: number | undefined;
  };
  bare: { rssAfterStartMb: number | undefined; rssAfterCallsMb: number | undefined };
  embeddingHeap?:
    | {
        after1000CallsMb: number | undefined;
        after10000CallsMb: number | undefined;
        growthMb: number | undefined;
      }
    | undefined;
}

/** One row of the targets table; `met` undefined: reported, not a target. */
export interface TargetRow {
  what: string;
  target: string;
  measured: string;
  floor: string;
  /** The peer's figure, where it has one (absent in results written before it was added). */
  peer?: string;
  met: boolean | undefined;
}

/** What every run records, whichever phases it runs (--catalog-only, --agents-only). */
export interface RunResult {
  date: string;
  machine: ReturnType<typeof machine>;
  quick: boolean;
  counts: Counts;
  upstream: string;
  tokenizer: string;
  catalog?: CatalogCost;
  catalogBaseline?: CatalogCost | undefined;
  discovery?: Discovery;
  resultSize?: ResultSizeRow[];
  stdio?: TransportPhases;
  http?: TransportPhases;
  embedding?: EmbeddingPhases;
  memory?: Memory;
  /** Token store cost: the same call with its OAuth token in the file store and in Redis. */
  storeCost?: Awaited<ReturnType<typeof measureStoreCost>>;
  /** Memory while many HTTP sessions are opened and dropped. */
  sessionChurn?: Awaited<ReturnType<typeof measureSessionChurn>>;
  coldStart?: {
    hostAllPlugins: ColdStart & { tools?: number };
    /** All plugins with the default catalog (`auto`: the dynamic one above 100 tools). */
    hostDefault?: ColdStart;
    hostOnePlugin: ColdStart;
    bare: ColdStart;
    /** The bare server listing the host's tools as well: what the catalog's size costs a start. */
    bareHostCatalog?: ColdStart;
    peer: ColdStart;
  };
  targets?: TargetRow[];
  durationSeconds?: number;
}

/** A run with every measuring phase done: what targets() reads. */
export type MeasuredResult = RunResult &
  Required<Pick<RunResult, 'catalog' | 'stdio' | 'http' | 'embedding' | 'memory' | 'coldStart'>>;

/** A finished run, as writeResults() writes it. */
export type BenchResult = MeasuredResult & Required<Pick<RunResult, 'targets' | 'durationSeconds'>>;

/** The catalog table needs the catalog alone. */
export type CatalogResult = Pick<RunResult, 'catalogBaseline'> & { catalog: CatalogCost };
