// The project's performance targets, each row with toolhost's figure beside the floor's (the
// bare SDK server) and a verdict; timing is reported here, never asserted.
import { round } from './measure.mjs';
import { fmt } from './report.mjs';
import { at } from './rounds.mjs';

/** @typedef {import('./bench-result.js').TargetRow} TargetRow */
/** @typedef {import('./bench-result.js').RunResult} RunResult */
/** @typedef {import('./rounds.mjs').Phase} Phase */

/**
 * The rows of a targets table, and how one is added.
 * @returns {[TargetRow[], (what: string, target: string, measured: string, floor: string, met: boolean | undefined, peer?: string) => void]}
 */
function targetRows() {
  /** @type {TargetRow[]} */
  const rows = [];
  return [
    rows,
    (what, target, measured, floor, met, peer = '–') =>
      rows.push({ what, target, measured, floor, peer, met }),
  ];
}

/**
 * The summary at concurrency `c`; every finished run has one for each of CONCURRENCY.
 * @param {readonly Phase[]} phases
 * @param {number} c
 */
function phaseAt(phases, c) {
  const p = at(phases, c);
  if (!p) throw new Error(`no phase at concurrency ${c}`);
  return p;
}

/**
 * The target rows ({what, target, measured, floor, met}) of a finished result.
 * @param {import('./bench-result.js').MeasuredResult} r
 * @returns {TargetRow[]}
 */
export function targets(r) {
  const [rows, add] = targetRows();
  // Overhead targets are at c=1, relative to the floor: `met(host, floor)` in ms. A figure that
  // could not be measured (undefined) compares as NaN, so the target reads as not met.
  /**
   * @param {string} what
   * @param {string} target
   * @param {import('./bench-result.js').TransportPhases} set
   * @param {'overheadP50' | 'overheadP99'} field
   * @param {(host: number, floor: number) => boolean} met
   */
  const overhead = (what, target, set, field, met) => {
    const host = phaseAt(set.host, 1)[field];
    const floor = phaseAt(set.bare, 1)[field];
    const peer = phaseAt(set.peer, 1)[field];
    add(
      what,
      target,
      `${host} ms`,
      `${floor} ms`,
      met(host ?? Number.NaN, floor ?? Number.NaN),
      `${peer} ms`,
    );
  };
  overhead('stdio p50 overhead (c=1)', '≤ floor + 0.1 ms', r.stdio, 'overheadP50', (h, b) => h <= b + 0.1);
  overhead('stdio p99 overhead (c=1)', '≤ floor + 1 ms', r.stdio, 'overheadP99', (h, b) => h <= b + 1);
  overhead('HTTP p50 overhead (c=1)', '≤ floor + 0.2 ms', r.http, 'overheadP50', (h, b) => h <= b + 0.2);
  overhead('HTTP p50 overhead (c=1), stretch', '< floor', r.http, 'overheadP50', (h, b) => h < b);
  const httpPeer = phaseAt(r.http.peer, 1).overheadP50 ?? Number.NaN;
  const httpHost = phaseAt(r.http.host, 1).overheadP50 ?? Number.NaN;
  add(
    'HTTP p50 overhead (c=1), against the peer',
    '≤ peer',
    `${httpHost} ms`,
    '–',
    httpHost <= httpPeer,
    `${httpPeer} ms`,
  );
  for (const [t, set] of /** @type {const} */ ([
    ['stdio', r.stdio],
    ['HTTP', r.http],
  ])) {
    const host = phaseAt(set.host, 64).cpuUsPerCall ?? Number.NaN;
    const bare = phaseAt(set.bare, 64).cpuUsPerCall ?? Number.NaN;
    const peer = phaseAt(set.peer, 64).cpuUsPerCall ?? Number.NaN;
    add(
      `${t} server CPU per call (c=64)`,
      '≤ floor',
      fmt(host, ' µs'),
      fmt(bare, ' µs'),
      host <= bare,
      fmt(peer, ' µs'),
    );
    add(
      `${t} server CPU per call (c=64), against the peer`,
      '≤ peer',
      fmt(host, ' µs'),
      '–',
      host <= peer,
      fmt(peer, ' µs'),
    );
  }
  for (const row of eraTargets(r)) rows.push(row);
  add(
    `cold start, all plugins (${r.coldStart.hostAllPlugins.tools} tools)`,
    '< 450 ms',
    `${r.coldStart.hostAllPlugins.medianMs} ms`,
    `${r.coldStart.bare.medianMs} ms`,
    r.coldStart.hostAllPlugins.medianMs < 450,
  );
  const c = r.coldStart;
  add(
    'cold start, all plugins, against the bare SDK server (same run)',
    '≤ bare + 100 ms',
    `${c.hostAllPlugins.medianMs} ms`,
    `${c.bare.medianMs} ms`,
    c.hostAllPlugins.medianMs <= c.bare.medianMs + 100,
    `${c.peer.medianMs} ms`,
  );
  if (c.hostAllPlugins.rssMb !== undefined && c.bare.rssMb !== undefined)
    add(
      'RSS right after the first tools/list, all plugins, against the bare SDK server',
      '≤ bare + 15 MB',
      `${c.hostAllPlugins.rssMb} MB`,
      `${c.bare.rssMb} MB`,
      c.hostAllPlugins.rssMb <= c.bare.rssMb + 15,
      c.peer.rssMb === undefined ? '–' : `${c.peer.rssMb} MB`,
    );
  add(
    'RSS after start, all plugins',
    '< 100 MB',
    `${r.memory.host.rssAfterStartMb} MB`,
    `${r.memory.bare.rssAfterStartMb} MB`,
    (r.memory.host.rssAfterStartMb ?? Number.NaN) < 100,
  );
  const heap = r.memory.embeddingHeap;
  if (heap)
    add(
      'heap growth after GC, 1,000 → 10,000 calls (in process)',
      '≈ 0 (≤ 1 MB)',
      `${heap.growthMb} MB`,
      '–',
      (heap.growthMb ?? Number.NaN) <= 1,
    );
  add(
    `RSS growth over stdio, ${r.memory.host.warmupCalls.toLocaleString('en')} → ${r.memory.host.calls.toLocaleString('en')} calls`,
    'reported',
    `${r.memory.host.growthMb} MB`,
    `${round((r.memory.bare.rssAfterCallsMb ?? Number.NaN) - (r.memory.bare.rssAfterStartMb ?? Number.NaN), 1)} MB (start → end)`,
    undefined,
  );
  if (r.storeCost)
    add(
      'Redis token store: call p50 over the file store (c=1, in process)',
      '≤ +0.3 ms',
      `+${r.storeCost.p50DeltaMs} ms (${r.storeCost.redis.p50} vs ${r.storeCost.file.p50} ms)`,
      '–',
      (r.storeCost.p50DeltaMs ?? Number.NaN) <= 0.3,
    );
  if (r.storeCost?.idlePaced)
    add(
      'Shared pacer: idle call p50 over the same idle call unpaced (Redis store, c=1, in process)',
      '≤ +1 ms',
      `+${r.storeCost.idlePaced.pacerP50DeltaMs} ms (${r.storeCost.idlePaced.redis.p50} vs ${r.storeCost.idlePaced.unpaced.p50} ms; file store paced ${r.storeCost.idlePaced.file.p50} ms)`,
      '–',
      (r.storeCost.idlePaced.pacerP50DeltaMs ?? Number.NaN) <= 1,
    );
  const churn = r.sessionChurn;
  if (churn)
    add(
      `heap objects after GC (compiled code aside), ${churn.sessions.toLocaleString('en')} HTTP sessions opened and dropped`,
      'flat (≤ 2 MB growth)',
      `${churn.start.objectsMb} → ${churn.middle.objectsMb} → ${churn.end.objectsMb} MB (whole heap ${churn.start.heapMb} → ${churn.end.heapMb} MB)`,
      '–',
      (churn.objectsGrowthMb ?? Number.NaN) <= 2 && churn.failures === 0,
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

/**
 * The agent-facing targets: search_tools in the dynamic catalog, and answer sizes.
 * @param {Pick<RunResult, 'discovery' | 'resultSize'>} r
 * @returns {TargetRow[]}
 */
export function agentTargets(r) {
  const [rows, add] = targetRows();
  const d = r.discovery;
  const main = d?.sets[0];
  const test = d?.everyday?.test;
  if (test) {
    const label = `search_tools, everyday test part (${test.requests} requests)`;
    add(`${label}: top-1`, '≥ 85%', `${test.top1}%`, '–', (test.top1 ?? Number.NaN) >= 85);
    add(`${label}: top-5`, '≥ 97%', `${test.top5}%`, '–', (test.top5 ?? Number.NaN) >= 97);
    add(`${label}: MRR@5`, '≥ 0.90', `${test.mrr5}`, '–', (test.mrr5 ?? Number.NaN) >= 0.9);
  }
  const asked = d?.realQuestions?.heldOut;
  if (asked) {
    const label = `search_tools, real questions held out (${asked.requests})`;
    add(`${label}: top-1`, '≥ 90%', `${asked.top1}%`, '–', (asked.top1 ?? Number.NaN) >= 90);
    add(`${label}: top-5`, '≥ 98%', `${asked.top5}%`, '–', (asked.top5 ?? Number.NaN) >= 98);
    add(`${label}: MRR@5`, '≥ 0.93', `${asked.mrr5}`, '–', (asked.mrr5 ?? Number.NaN) >= 0.93);
  }
  if (d && main) {
    add(
      `search_tools top-5 (${main.requests} requests, ${main.toolsCovered} tools)`,
      '≥ 95%',
      `${main.top5}%`,
      '–',
      (main.top5 ?? Number.NaN) >= 95,
    );
    add(`search_tools top-1 (same set)`, '≥ 80%', `${main.top1}%`, '–', (main.top1 ?? Number.NaN) >= 80);
    for (const held of d.sets.slice(1))
      add(
        `search_tools top-1 / top-5, held out (${held.file}, ${held.requests})`,
        'reported',
        `${held.top1}% / ${held.top5}%`,
        '–',
        undefined,
      );
    add('search_tools p50 latency over stdio', '≤ 2 ms', `${d.p50Ms} ms`, '–', (d.p50Ms ?? Number.NaN) <= 2);
    add(
      'dynamic tools/list + instructions tokens',
      '≤ 1,500',
      d.listing.total.toLocaleString('en'),
      '–',
      d.listing.total <= 1500,
    );
  }
  for (const row of (r.resultSize ?? []).filter((x) => x.server === 'hostOnce')) {
    const bare = r.resultSize?.find((x) => x.server === 'bare' && x.bodyBytes === row.bodyBytes);
    add(
      `answer / body bytes at ${Math.round(row.bodyBytes / 1000)} KB (body once)`,
      '≤ 1.15×',
      `${row.ratio}×`,
      bare ? `${bare.ratio}×` : '–',
      (row.ratio ?? Number.NaN) <= 1.15,
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

/**
 * Server CPU per call (c=64) of the host answering MCP 2026-07-28, beside the same host
 * answering the session era and beside the peer, in the same run: over HTTP the new era must
 * cost no more than the old one or the peer; over stdio no more than the peer. Rows only for
 * the transports where the new era was measured.
 * @param {{ stdio?: import('./bench-result.js').TransportPhases, http?: import('./bench-result.js').TransportPhases }} r
 * @returns {TargetRow[]}
 */
export function eraTargets(r) {
  const [rows, add] = targetRows();
  for (const [t, set] of /** @type {const} */ ([
    ['stdio', r.stdio],
    ['HTTP', r.http],
  ])) {
    if (!set?.hostStateless) continue;
    const modern = phaseAt(set.hostStateless, 64).cpuUsPerCall ?? Number.NaN;
    const session = phaseAt(set.host, 64).cpuUsPerCall ?? Number.NaN;
    const peer = phaseAt(set.peer, 64).cpuUsPerCall ?? Number.NaN;
    if (t === 'HTTP')
      add(
        `${t} server CPU per call (c=64), 2026-07-28 against the session era (${fmt(session, ' µs')})`,
        '≤ session era',
        fmt(modern, ' µs'),
        '–',
        modern <= session,
        fmt(peer, ' µs'),
      );
    add(
      `${t} server CPU per call (c=64), 2026-07-28 against the peer`,
      '≤ peer',
      fmt(modern, ' µs'),
      '–',
      modern <= peer,
      fmt(peer, ' µs'),
    );
  }
  return rows;
}
