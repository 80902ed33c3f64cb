import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SearchableTool } from './searchable-tool.js';

/**
 * Questions people asked in public (GitHub issues and pull requests of the vendors' SDKs, of
 * integration platforms and of MCP servers, forum threads) that one of the tools answers, each
 * with the tools that answer it and where it was asked. Frozen before any ranking change was
 * judged on it: the held-out half is chosen by a hash of the question's id, so nobody picks it,
 * and it is reported only as totals (`pnpm bench`).
 */
interface RealQuestion {
  id: string;
  question: string;
  tools: string[];
  source: string;
  half: 'open' | 'held-out';
}

const read = <T>(file: string) => JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8')) as T;
const questions = read<RealQuestion[]>('../eval/real-questions.json');
const toolNames = new Set(read<SearchableTool[]>('../eval/catalog.json').map((t) => t.name));

/** The half a question falls in: the parity of the first byte of the SHA-256 of its id. */
const halfOf = (id: string) =>
  (createHash('sha256').update(id).digest()[0] ?? 0) % 2 === 1 ? 'held-out' : 'open';

describe('the real questions evaluation set', () => {
  it('holds at least 300 questions, each asked once, at a public address', () => {
    expect(questions.length).toBeGreaterThanOrEqual(300);
    expect(new Set(questions.map((q) => q.id)).size).toBe(questions.length);
    expect(new Set(questions.map((q) => q.source)).size).toBe(questions.length);
    for (const q of questions) {
      expect(q.source, q.id).toMatch(/^https:\/\/[^\s]+$/);
      expect(q.question.trim().length, q.id).toBeGreaterThan(10);
    }
  });

  it('labels every question with tools that exist, at least one each', () => {
    for (const q of questions) {
      expect(q.tools.length, q.id).toBeGreaterThan(0);
      for (const tool of q.tools) expect(toolNames, `${q.id}: ${tool}`).toContain(tool);
    }
  });

  it("splits the questions by their id's hash, about half held out", () => {
    for (const q of questions) expect(q.half, q.id).toBe(halfOf(q.id));
    const held = questions.filter((q) => q.half === 'held-out').length;
    expect(held / questions.length).toBeGreaterThan(0.4);
    expect(held / questions.length).toBeLessThan(0.6);
  });
});

/**
 * A second set, collected later from other public threads for tuning the ranking without
 * touching the first set's held-out half; frozen before any ranking change was judged on it.
 */
interface TuningQuestion extends Omit<RealQuestion, 'half'> {
  half: 'tuning';
}

const more = read<TuningQuestion[]>('../eval/real-questions-more.json');

/** An address compared without scheme, case, query, fragment or trailing slash. */
const address = (url: string) =>
  url
    .toLowerCase()
    .replace(/^https?:\/\/(www\.)?/, '')
    .replace(/[?#].*$/, '')
    .replace(/\/+$/, '');

describe('the second, tuning set of real questions', () => {
  it('holds at least 120 questions, each asked once, at a public address, all for tuning', () => {
    expect(more.length).toBeGreaterThanOrEqual(120);
    expect(new Set(more.map((q) => q.id)).size).toBe(more.length);
    expect(new Set(more.map((q) => address(q.source))).size).toBe(more.length);
    for (const q of more) {
      expect(q.source, q.id).toMatch(/^https:\/\/[^\s]+$/);
      expect(q.question.trim().length, q.id).toBeGreaterThan(10);
      expect(q.half, q.id).toBe('tuning');
    }
  });

  it('labels every question with tools that exist, at least one each', () => {
    for (const q of more) {
      expect(q.tools.length, q.id).toBeGreaterThan(0);
      for (const tool of q.tools) expect(toolNames, `${q.id}: ${tool}`).toContain(tool);
    }
  });

  it('shares no thread with the first set (counted, so no held-out question is shown)', () => {
    const ids = new Set(questions.map((q) => q.id.toLowerCase().replace('!', '#')));
    const sources = new Set(questions.map((q) => address(q.source)));
    const shared = more.filter(
      (q) => ids.has(q.id.toLowerCase().replace('!', '#')) || sources.has(address(q.source)),
    ).length;
    expect(shared).toBe(0);
  });
});
