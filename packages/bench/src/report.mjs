// The bench's output: the markdown tables printed and written to results/, the JSON result
// beside them, and the saved catalog baseline the catalog table compares against.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { at, CONCURRENCY } from './rounds.mjs';

const RESULTS = join(dirname(dirname(fileURLToPath(import.meta.url))), 'results');
const BASELINE_FILE = join(RESULTS, 'catalog-baseline.json');

/** @typedef {import('./bench-result.js').BenchResult} BenchResult */
/** @typedef {import('./bench-result.js').CatalogCost} CatalogCost */
/** @typedef {string | number | undefined} Cell */

/** A number with its unit, or a dash where it was not measured. */
/** @type {(n: number | undefined, unit?: string) => string} */
export const fmt = (n, unit = '') => (n === undefined || Number.isNaN(n) ? '–' : `${n}${unit}`);

/**
 * A markdown table whose columns are padded, so that it reads as well on the console.
 * @param {string[]} headers
 * @param {Cell[][]} rows
 */
export function table(headers, rows) {
  const cells = [headers, ...rows.map((r) => r.map((c) => (c === undefined ? '–' : String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i]?.length ?? 0)));
  const line = (/** @type {string[]} */ r) => `| ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [
    line(headers),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...cells.slice(1).map(line),
  ].join('\n');
}

/** The machine the run was on, for the report's first line. */
export function machine() {
  let cpu = cpus()[0]?.model ?? 'unknown';
  try {
    cpu = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpu;
  } catch {}
  return {
    cpus: cpus().length,
    cpu,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    kernel: release(),
  };
}

/**
 * One row per concurrency and server, in the order the tables have always had.
 * @param {import('./bench-result.js').TransportPhases} set
 */
function latencyRows(set) {
  /** @type {Cell[][]} */
  const rows = [];
  for (const c of CONCURRENCY) {
    for (const [key, label] of /** @type {const} */ ([
      ['direct', 'direct axios (baseline)'],
      ['bare', 'bare SDK (floor)'],
      ['host', 'toolhost (session era)'],
      ['hostStateless', 'toolhost (2026-07-28)'],
      ['peer', 'peer (openapi-mcp-server)'],
    ])) {
      const p = set[key] && at(set[key], c);
      if (!p) continue;
      rows.push([
        c,
        label,
        p.p50,
        p.p99,
        p.overheadP50,
        p.overheadP99,
        p.callsPerSecond,
        fmt(p.cpuUsPerCall),
      ]);
    }
  }
  return rows;
}

const LATENCY_HEADERS = [
  'conc.',
  'server',
  'p50 ms',
  'p99 ms',
  'overhead p50',
  'overhead p99',
  'calls/s',
  'server CPU µs/call',
];

/**
 * The stdio and Streamable HTTP tables (of the full run, or of `--transport-only`).
 * @param {{ stdio: import('./bench-result.js').TransportPhases, http: import('./bench-result.js').TransportPhases }} r
 */
export function transportTables(r) {
  return [
    '### stdio',
    '',
    table(LATENCY_HEADERS, latencyRows(r.stdio)),
    '',
    '### Streamable HTTP',
    '',
    table(LATENCY_HEADERS, latencyRows(r.http)),
  ].join('\n');
}

/**
 * The catalog's cost per tool set, beside the saved baseline where there is one.
 * @param {import('./bench-result.js').CatalogResult} r
 */
export function catalogTable(r) {
  const before = new Map((r.catalogBaseline?.sets ?? []).map((s) => [s.toolSet, s]));
  /** @type {Cell[][]} */
  const rows = r.catalog.sets.map((s) => {
    const b = before.get(s.toolSet);
    return [
      s.toolSet,
      s.tools,
      b ? `${b.tokens} (${b.tools} tools)` : '–',
      s.tokens,
      Math.round(s.tokens / s.tools),
      s.bytes,
    ];
  });
  const b = r.catalogBaseline;
  rows.push([
    'all tools/list',
    r.catalog.tools,
    b ? `${b.tokens} (${b.tools} tools)` : '–',
    r.catalog.tokens,
    Math.round(r.catalog.tokens / r.catalog.tools),
    r.catalog.bytes,
  ]);
  rows.push([
    'server instructions (once)',
    '',
    b ? b.instructionsTokens : '–',
    r.catalog.instructionsTokens,
    '',
    '',
  ]);
  return table(['tool set', 'tools', 'tokens before', 'tokens now', 'tokens/tool', 'bytes now'], rows);
}

/**
 * The target rows: what, target, toolhost's figure, the floor's, and whether it is met.
 * @param {{ targets: import('./bench-result.js').TargetRow[] }} r
 */
export function targetsTable(r) {
  return table(
    ['what', 'target', 'toolhost', 'floor (bare SDK server)', 'peer (openapi-mcp-server)', 'met'],
    r.targets.map((t) => [
      t.what,
      t.target,
      t.measured,
      t.floor,
      t.peer ?? '–',
      t.met === undefined ? '–' : t.met ? 'yes' : 'NO',
    ]),
  );
}

/**
 * search_tools accuracy and latency, the dynamic listing's cost, and answer sizes.
 * @param {Pick<BenchResult, 'discovery' | 'resultSize'>} r
 */
export function agentsTables(r) {
  /** @type {string[]} */
  const out = [];
  const d = r.discovery;
  /** One row of ranking figures: requests, tools covered, top-1/3/5 and MRR@5. */
  const row = (
    /** @type {string} */ label,
    /** @type {{ requests: number, toolsCovered: number, top1?: number, top3?: number, top5?: number, mrr5?: number }} */ f,
  ) => [label, f.requests, f.toolsCovered, `${f.top1}%`, `${f.top3}%`, `${f.top5}%`, f.mrr5];
  if (d?.everyday) {
    const e = d.everyday;
    out.push(
      table(
        [`${e.file}`, 'requests', 'tools covered', 'top-1', 'top-3', 'top-5', 'MRR@5'],
        [
          row('**test part** (never used for tuning)', e.test),
          ...Object.entries(e.test.toolSets).map(([set, f]) => row(`test part, ${set}`, f)),
          [
            `${e.kFold.folds}-fold, mean (lowest fold)`,
            e.test.requests + e.tune.requests,
            '–',
            `${e.kFold.mean.top1}% (${e.kFold.min.top1}%)`,
            `${e.kFold.mean.top3}% (${e.kFold.min.top3}%)`,
            `${e.kFold.mean.top5}% (${e.kFold.min.top5}%)`,
            `${e.kFold.mean.mrr5} (${e.kFold.min.mrr5})`,
          ],
          row('tuning part', e.tune),
        ],
      ),
    );
    out.push('');
  }
  if (d?.realQuestions) {
    const q = d.realQuestions;
    out.push(
      table(
        [
          `${q.file} (questions people asked)`,
          'questions',
          'tools covered',
          'top-1',
          'top-3',
          'top-5',
          'MRR@5',
        ],
        [
          row('**held-out half** (totals only)', q.heldOut),
          // The host ships the open half's questions as past requests: over it, each is found
          // by itself. `bench:search` scores them without their own (by folds).
          row('open half (in sample: shipped as past requests)', q.open),
          ...Object.entries(q.open.toolSets).map(([set, f]) => row(`open half, ${set} (in sample)`, f)),
        ],
      ),
    );
    out.push('');
  }
  if (d) {
    out.push(
      table(
        ['evaluation set', 'requests', 'tools covered', 'top-1', 'top-5'],
        d.sets.map((s) => [s.file, s.requests, s.toolsCovered, `${s.top1}%`, `${s.top5}%`]),
      ),
    );
    out.push('');
    out.push(
      table(
        ['dynamic catalog (serve --stdio --catalog dynamic)', 'value'],
        [
          ['search_tools p50 / p99 over stdio', `${d.p50Ms} / ${d.p99Ms} ms (${d.searches} searches)`],
          ['tools/list tokens (3 tools)', d.listing.tokens],
          ['server instructions tokens', d.listing.instructionsTokens],
          ['listing + instructions', d.listing.total],
        ],
      ),
    );
    out.push('');
  }
  if (r.resultSize) {
    out.push(
      table(
        ['server', 'body bytes', 'answer bytes', 'answer / body', 'resources/read bytes', 'call p50'],
        r.resultSize.map((x) => [
          x.label,
          x.bodyBytes,
          x.answerBytes,
          `${x.ratio}×`,
          x.resourceReadBytes ?? '–',
          `${x.p50Ms} ms`,
        ]),
      ),
    );
  }
  return out.join('\n');
}

/**
 * The whole result as markdown: targets, latency per transport, cold start, memory, catalog.
 * @param {BenchResult} r
 */
function markdown(r) {
  const m = r.machine;
  /** @type {string[]} */
  const out = [];
  out.push(
    `Machine: ${m.cpus} × ${m.cpu}, ${m.memoryGb} GB, Node ${m.node}, Linux ${m.kernel}; ${r.date}${r.quick ? ' (--quick)' : ''}`,
  );
  out.push('');
  out.push('### Targets');
  out.push('');
  out.push(targetsTable(r));
  out.push('');
  out.push(
    'Overhead = the p50 (p99) latency of a call through the server minus that of a direct axios call to the same upstream from the bench process, measured in alternating rounds. Server CPU = user + system time of the server process (/proc/<pid>/stat) over the calls; for the embedding API, of the bench process itself.',
  );
  out.push('');
  out.push(transportTables(r));
  out.push('');
  out.push('### In-process embedding API (no transport)');
  out.push('');
  out.push(
    table(
      [
        'conc.',
        'direct axios p50 / p99 ms',
        'host.callTool p50 / p99 ms',
        'overhead p50',
        'overhead p99',
        'calls/s',
        'CPU µs/call (direct)',
        'CPU µs over direct',
      ],
      r.embedding.host.map((p, i) => {
        const d = r.embedding.direct[i];
        return [
          p.concurrency,
          `${d?.p50} / ${d?.p99}`,
          `${p.p50} / ${p.p99}`,
          p.overheadP50,
          p.overheadP99,
          p.callsPerSecond,
          `${p.cpuUsPerCall} (${d?.cpuUsPerCall})`,
          p.cpuUsOverDirect,
        ];
      }),
    ),
  );
  out.push('');
  if (r.storeCost || r.sessionChurn) {
    out.push('### Token store and HTTP session churn (in process)');
    out.push('');
    /** @type {(string | number | undefined)[][]} */
    const rows = [];
    const st = r.storeCost;
    if (st)
      for (const [label, p] of /** @type {const} */ ([
        ['OAuth call, token in the encrypted file store', st.file],
        ['OAuth call, token in Redis (RedisTokenStore)', st.redis],
        ...(st.idlePaced
          ? /** @type {const} */ ([
              ['idle paced call, file store (in-process pacer)', st.idlePaced.file],
              ['idle paced call, Redis store (shared pacer)', st.idlePaced.redis],
              ['idle unpaced call, Redis store', st.idlePaced.unpaced],
            ])
          : []),
      ]))
        rows.push([label, `p50 ${p.p50} ms / p99 ${p.p99} ms (${p.calls} calls, c=1)`]);
    const ch = r.sessionChurn;
    if (ch)
      for (const [label, m] of /** @type {const} */ ([
        [`sessions: start (after ${ch.warmupSessions})`, ch.start],
        [`sessions: after ${Math.floor(ch.sessions / 2)} more`, ch.middle],
        [`sessions: after ${ch.sessions} more (${ch.failures} failed)`, ch.end],
      ]))
        rows.push([label, `heap after GC ${m.heapMb} MB (objects ${m.objectsMb} MB), RSS ${m.rssMb} MB`]);
    out.push(table(['what', 'measured'], rows));
    out.push('');
  }
  out.push('### Cold start (process start → first tools/list answer, stdio) and memory');
  out.push('');
  const c = r.coldStart;
  out.push(
    table(
      ['server', 'cold start median', 'min', 'RSS after start', 'RSS after calls', 'RSS at first answer'],
      [
        [
          `toolhost, all plugins (${c.hostAllPlugins.tools} tools)`,
          `${c.hostAllPlugins.medianMs} ms`,
          `${c.hostAllPlugins.minMs} ms`,
          `${r.memory.host.rssAfterStartMb} MB`,
          `${r.memory.host.rssAfterCallsMb} MB after ${r.memory.host.calls.toLocaleString('en')} calls (${r.memory.host.rssAfterWarmupMb} MB after ${r.memory.host.warmupCalls.toLocaleString('en')})`,
          rssOf(c.hostAllPlugins),
        ],
        ...(c.hostDefault
          ? [
              [
                'toolhost, all plugins, default catalog (auto: dynamic)',
                `${c.hostDefault.medianMs} ms`,
                `${c.hostDefault.minMs} ms`,
                '',
                '',
                rssOf(c.hostDefault),
              ],
            ]
          : []),
        [
          'toolhost, one plugin (CrmEventsApi)',
          `${c.hostOnePlugin.medianMs} ms`,
          `${c.hostOnePlugin.minMs} ms`,
          '',
          '',
          rssOf(c.hostOnePlugin),
        ],
        [
          'bare SDK server, one tool',
          `${c.bare.medianMs} ms`,
          `${c.bare.minMs} ms`,
          `${r.memory.bare.rssAfterStartMb} MB`,
          `${r.memory.bare.rssAfterCallsMb} MB`,
          rssOf(c.bare),
        ],
        ...(c.bareHostCatalog
          ? [
              [
                `bare SDK server listing the host's ${c.hostAllPlugins.tools} tools`,
                `${c.bareHostCatalog.medianMs} ms`,
                `${c.bareHostCatalog.minMs} ms`,
                '',
                '',
                rssOf(c.bareHostCatalog),
              ],
            ]
          : []),
        ['peer, one tool', `${c.peer.medianMs} ms`, `${c.peer.minMs} ms`, '', '', rssOf(c.peer)],
      ],
    ),
  );
  out.push('');
  out.push('### Catalog cost (tools/list answer; tokens: o200k_base)');
  out.push('');
  out.push(catalogTable(r));
  out.push('');
  out.push('### Agents: search_tools in the dynamic catalog, and answer sizes (stdio)');
  out.push('');
  out.push(agentsTables(r));
  return out.join('\n');
}

/**
 * The cold-start rows alone (--cold-only): each server against the bare SDK server of the
 * same run, which is what the start-up targets compare; `paired` is the median of each run's
 * difference, steadier than the difference of medians on a busy machine.
 * @param {Record<string, import('./bench-result.js').ColdStart & { tools: number }>} c
 */
export function coldStartTable(c) {
  const bare = c.bare;
  const delta = (/** @type {number | undefined} */ a, /** @type {number | undefined} */ b, unit = '') =>
    a === undefined || b === undefined ? '–' : `${a - b >= 0 ? '+' : ''}${round1(a - b)}${unit}`;
  const signed = (/** @type {number | undefined} */ n) => delta(n, 0, ' ms');
  return table(
    [
      'server',
      'tools',
      'runs',
      'cold start median',
      'min',
      'vs bare',
      'vs bare, paired',
      'CPU to first answer',
      'RSS at first answer',
      'vs bare',
    ],
    Object.entries(c).map(([key, v]) => [
      key,
      v.tools,
      v.runs,
      `${v.medianMs} ms`,
      `${v.minMs} ms`,
      delta(v.medianMs, bare?.medianMs, ' ms'),
      signed(v.overBarePairedMs),
      fmt(v.cpuMs, ' ms'),
      rssOf(v),
      delta(v.rssMb, bare?.rssMb, ' MB'),
    ]),
  );
}

const round1 = (/** @type {number} */ n) => Math.round(n * 10) / 10;

/**
 * Saves the catalog cost as the baseline later runs compare against (--save-baseline).
 * @param {CatalogCost} catalog
 */
export function saveCatalogBaseline(catalog) {
  writeFileSync(BASELINE_FILE, `${JSON.stringify(catalog, null, 2)}\n`);
}

/** @returns {CatalogCost | undefined} */
export function readCatalogBaseline() {
  return existsSync(BASELINE_FILE) ? JSON.parse(readFileSync(BASELINE_FILE, 'utf8')) : undefined;
}

/**
 * Writes results/latest.{json,md} (quick.* for --quick) and prints the markdown.
 * @param {BenchResult} result
 */
export function writeResults(result) {
  const name = result.quick ? 'quick' : 'latest';
  mkdirSync(RESULTS, { recursive: true });
  const md = markdown(result);
  writeFileSync(join(RESULTS, `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(RESULTS, `${name}.md`), `${md}\n`);
  console.log(`\n${md}\n`);
  console.log(`wrote ${join('packages/bench/results', `${name}.json`)} (${result.durationSeconds} s)`);
}

/** A cold start's resident memory at its first answer, where it was read. */
function rssOf(/** @type {{ rssMb?: number }} */ c) {
  return c.rssMb === undefined ? '–' : `${c.rssMb} MB`;
}
