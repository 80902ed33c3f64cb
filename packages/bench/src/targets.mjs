// The project's performance targets, each row with toolhost's figure beside the floor's (the
// bare SDK server) and a verdict; timing is reported here, never asserted.
import { round } from './measure.mjs';
import { fmt } from './report.mjs';
import { at } from './rounds.mjs';

/** The target rows ({what, target, measured, floor, met}) of a finished result. */
export function targets(r) {
  const rows = [];
  const add = (what, target, measured, floor, met) => rows.push({ what, target, measured, floor, met });
  // Overhead targets are at c=1, relative to the floor: `met(host, floor)` in ms.
  const overhead = (what, target, set, field, met) => {
    const host = at(set.host, 1)[field];
    const floor = at(set.bare, 1)[field];
    add(what, target, `${host} ms`, `${floor} ms`, met(host, floor));
  };
  overhead('stdio p50 overhead (c=1)', '≤ floor + 0.1 ms', r.stdio, 'overheadP50', (h, b) => h <= b + 0.1);
  overhead('stdio p99 overhead (c=1)', '≤ floor + 1 ms', r.stdio, 'overheadP99', (h, b) => h <= b + 1);
  overhead('HTTP p50 overhead (c=1)', '≤ floor + 0.2 ms', r.http, 'overheadP50', (h, b) => h <= b + 0.2);
  overhead('HTTP p50 overhead (c=1), stretch', '< floor', r.http, 'overheadP50', (h, b) => h < b);
  for (const [t, set] of [
    ['stdio', r.stdio],
    ['HTTP', r.http],
  ]) {
    const host = at(set.host, 64).cpuUsPerCall;
    const bare = at(set.bare, 64).cpuUsPerCall;
    add(
      `${t} server CPU per call (c=64)`,
      '≤ floor',
      `${fmt(host, ' µs')}`,
      `${fmt(bare, ' µs')}`,
      host <= bare,
    );
  }
  add(
    `cold start, all plugins (${r.coldStart.hostAllPlugins.tools} tools)`,
    '< 450 ms',
    `${r.coldStart.hostAllPlugins.medianMs} ms`,
    `${r.coldStart.bare.medianMs} ms`,
    r.coldStart.hostAllPlugins.medianMs < 450,
  );
  add(
    'RSS after start, all plugins',
    '< 100 MB',
    `${r.memory.host.rssAfterStartMb} MB`,
    `${r.memory.bare.rssAfterStartMb} MB`,
    r.memory.host.rssAfterStartMb < 100,
  );
  const heap = r.memory.embeddingHeap;
  if (heap)
    add(
      'heap growth after GC, 1,000 → 10,000 calls (in process)',
      '≈ 0 (≤ 1 MB)',
      `${heap.growthMb} MB`,
      '–',
      heap.growthMb <= 1,
    );
  add(
    `RSS growth over stdio, ${r.memory.host.warmupCalls.toLocaleString('en')} → ${r.memory.host.calls.toLocaleString('en')} calls`,
    'reported',
    `${r.memory.host.growthMb} MB`,
    `${round(r.memory.bare.rssAfterCallsMb - r.memory.bare.rssAfterStartMb, 1)} MB (start → end)`,
    undefined,
  );
  const staticTokens = r.catalog.tokens + r.catalog.instructionsTokens;
  add(
    `static catalog tokens (${r.catalog.tools} tools + instructions)`,
    '< 25,000',
    staticTokens.toLocaleString('en'),
    '–',
    staticTokens < 25_000,
  );
  return [...rows, ...agentTargets(r)];
}

/** The agent-facing targets: search_tools in the dynamic catalog, and answer sizes. */
export function agentTargets(r) {
  const rows = [];
  const add = (what, target, measured, floor, met) => rows.push({ what, target, measured, floor, met });
  const d = r.discovery;
  if (d) {
    const main = d.sets[0];
    add(
      `search_tools top-5 (${main.requests} requests, ${main.toolsCovered} tools)`,
      '≥ 95%',
      `${main.top5}%`,
      '–',
      main.top5 >= 95,
    );
    add(`search_tools top-1 (same set)`, '≥ 80%', `${main.top1}%`, '–', main.top1 >= 80);
    for (const held of d.sets.slice(1))
      add(
        `search_tools top-1 / top-5, held out (${held.file}, ${held.requests})`,
        'reported',
        `${held.top1}% / ${held.top5}%`,
        '–',
        undefined,
      );
    add('search_tools p50 latency over stdio', '≤ 2 ms', `${d.p50Ms} ms`, '–', d.p50Ms <= 2);
    add(
      'dynamic tools/list + instructions tokens',
      '≤ 1,500',
      d.listing.total.toLocaleString('en'),
      '–',
      d.listing.total <= 1500,
    );
  }
  for (const row of (r.resultSize ?? []).filter((x) => x.server === 'hostOnce')) {
    const bare = r.resultSize.find((x) => x.server === 'bare' && x.bodyBytes === row.bodyBytes);
    add(
      `answer / body bytes at ${Math.round(row.bodyBytes / 1000)} KB (body once)`,
      '≤ 1.15×',
      `${row.ratio}×`,
      bare ? `${bare.ratio}×` : '–',
      row.ratio <= 1.15,
    );
  }
  for (const row of (r.resultSize ?? []).filter((x) => x.server === 'hostDefault'))
    add(
      `answer bytes at ${Math.round(row.bodyBytes / 1000)} KB, default budget`,
      '≤ 80,000 + envelope',
      row.answerBytes.toLocaleString('en'),
      '–',
      row.answerBytes <= 82_000,
    );
  return rows;
}
