#!/usr/bin/env node
// Measures the multipleOf keyword (src/multiple-of.ts) against the paths it replaced and ajv's own,
// each as a validator ajv compiled: `node scripts/bench-multiple-of.mjs [runs]` after `pnpm build`.
// Not part of the build or the tests. Each run times every path on every set once, in turn, so a
// slow moment of the machine falls on all of them alike; the table shows the median run.
import { createRequire } from 'node:module';
import { decimalOf, isMultipleOf } from '../dist/exact-decimal.js';
import { exactMultipleOf } from '../dist/multiple-of.js';

const require = createRequire(import.meta.url);
const { Ajv, _, str } = require('ajv');

const RUNS = Number(process.argv[2] ?? 7);
const COUNT = 500_000;

let seed = 0x9e3779b9;
function random() {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 2 ** 32;
}
const many = (make) => Array.from({ length: COUNT }, make);

// Each set: the numbers (as JSON.parse reads amounts written with their digits) and the divisor.
const sets = [
  ['multiples of 0.01', 0.01, many(() => Math.floor(random() * 10_000_000) / 100)],
  [
    'non-multiples of 0.01',
    0.01,
    many(() => (Math.floor(random() * 1_000_000) * 10 + 1 + Math.floor(random() * 9)) / 1000),
  ],
  ['integers of 7 (1 in 7 a multiple)', 7, many(() => Math.floor(random() * 1e9))],
  ['multiples of 0.25', 0.25, many(() => Math.floor(random() * 4_000_000) / 4)],
  ['cents of 0.05 (1 in 5 a multiple)', 0.05, many(() => Math.floor(random() * 10_000_000) / 100)],
];

/** A multipleOf keyword as main had it: ajv calls `judge(m)`'s test with a context object. */
function keyword(judge) {
  const { error } = exactMultipleOf({ _, str });
  return {
    keyword: 'multipleOf',
    type: 'number',
    schemaType: 'number',
    errors: false,
    compile: judge,
    error,
  };
}

/** The exact path alone: every number's decimal, exactly (the keyword's first form). */
const exactOnly = (m) => {
  const divisor = decimalOf(String(m));
  return (n) => Number.isFinite(n) && isMultipleOf(decimalOf(String(n)), divisor);
};

/** main before this change: ajv's division, then the exact decimal. */
const divisionThenExact = (m) => {
  const divisor = decimalOf(String(m));
  return (n) => {
    const quotient = n / m;
    if (quotient === Number.parseInt(String(quotient), 10)) return true;
    return Number.isFinite(n) && isMultipleOf(decimalOf(String(n)), divisor);
  };
};

function ajvWith(def) {
  const ajv = new Ajv({ allErrors: true, strict: false, logger: false });
  if (def) {
    ajv.removeKeyword('multipleOf');
    ajv.addKeyword(def);
  }
  return ajv;
}

const paths = [
  ['exact decimal, every number', ajvWith(keyword(exactOnly))],
  ['division, then exact (main)', ajvWith(keyword(divisionThenExact))],
  ['new keyword', ajvWith(exactMultipleOf({ _, str }))],
  ['plain ajv multipleOf', ajvWith()],
];

const times = new Map();
const accepted = new Map();
for (let run = 0; run < RUNS; run++) {
  for (const [set, m, values] of sets) {
    for (const [path, ajv] of paths) {
      const validate = ajv.compile({ type: 'number', multipleOf: m });
      const start = process.hrtime.bigint();
      let yes = 0;
      for (let i = 0; i < values.length; i++) if (validate(values[i])) yes++;
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      const key = `${set}\0${path}`;
      times.set(key, [...(times.get(key) ?? []), ms]);
      accepted.set(key, yes);
    }
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
};

console.log(`node ${process.version}, ${COUNT} numbers a set, median of ${RUNS} interleaved runs\n`);
const rows = [['set', 'path', 'ms', 'ns/number', 'accepted']];
for (const [set] of sets) {
  for (const [path] of paths) {
    const key = `${set}\0${path}`;
    const ms = median(times.get(key));
    rows.push([set, path, ms.toFixed(1), ((ms * 1e6) / COUNT).toFixed(0), String(accepted.get(key))]);
  }
}
const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
for (const r of rows)
  console.log(r.map((cell, c) => (c >= 2 ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join('  '));
