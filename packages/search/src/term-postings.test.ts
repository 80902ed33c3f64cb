import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { TermPostings } from './term-postings.js';

const docs = [
  { id: 0, name: 'list records', text: 'List the records of a table, a page at a time.' },
  { id: 1, name: 'create records', text: 'Create records in a table; up to ten records per call.' },
  { id: 2, name: 'delete table', text: 'Delete a table and every record in it.' },
  { id: 3, name: 'list bases', text: 'List the bases the token can read.' },
];
const boost = { name: 1.5, text: 2 };
const bm25 = { k: 1.6, b: 0.9, d: 0.5 };
const mini = new MiniSearch<(typeof docs)[number]>({ fields: ['name', 'text'] });
mini.addAll(docs);
const postings = new TermPostings(mini, boost, bm25);

describe('TermPostings', () => {
  it('scores as MiniSearch does where a term has one rarity: BM25+, boosted, times the terms matched', () => {
    const one = new MiniSearch<(typeof docs)[number]>({ fields: ['text'] });
    one.addAll(docs);
    const texts = new TermPostings(one, { text: 2 }, bm25);
    for (const query of ['records table', 'list bases', 'delete every record records', 'nothing here']) {
      const expected = one.search(query, {
        boost: { text: 2 },
        bm25,
        boostTerm: (t) => (t === 'list' ? 0.25 : 1),
      });
      const got = texts.search(
        query.split(' '),
        (t) => (t === 'list' ? 0.25 : 1),
        () => true,
      );
      expect(got.map((m) => m.id)).toEqual(expected.map((r) => r.id));
      expect(got.map((m) => m.score)).toEqual(expected.map((r) => expect.closeTo(r.score, 10)));
    }
  });

  it('weighs a term by the share of documents that say it in any field, not in each field', () => {
    // `table` is in one name but in three texts: in the name it is as common as in the texts.
    const idf = Math.log(1 + (4 - 3 + 0.5) / (3 + 0.5));
    const bm = (tf: number, length: number, avg: number) =>
      bm25.d + (tf * (bm25.k + 1)) / (tf + bm25.k * (1 - bm25.b + (bm25.b * length) / avg));
    const nameAvg = (2 + 2 + 2 + 2) / 4;
    // Field lengths as MiniSearch counts them.
    const textAvg = (10 + 11 + 9 + 7) / 4;
    const [match] = postings.search(
      ['table'],
      () => 1,
      (id) => id === 2,
    );
    expect(match?.score).toBeCloseTo(idf * (1.5 * bm(1, 2, nameAvg) + 2 * bm(1, 9, textAvg)), 10);
  });

  it('leaves out the tools a filter rejects, and forgets one search before the next', () => {
    expect(
      postings
        .search(
          ['records'],
          () => 1,
          (id) => id !== 1,
        )
        .map((m) => m.id),
    ).toEqual([0]);
    const again = postings.search(
      ['records'],
      () => 1,
      () => true,
    );
    const fresh = mini.search('records', { boost, bm25 });
    expect(again.map((m) => m.score)).toEqual(fresh.map((r) => expect.closeTo(r.score, 10)));
  });

  it('counts the terms of one group (a word and its alternative) as one matched term', () => {
    // Tool 0's score for `terms`, each term its own group unless `groupOf` says otherwise.
    const score = (terms: string[], groupOf?: (t: string) => string) =>
      postings.search(
        terms,
        () => 1,
        (id) => id === 0,
        groupOf,
      )[0]?.score ?? 0;
    // Tool 0 says `records` only: one term matched either way.
    expect(score(['records', 'record'], () => 'records')).toBeCloseTo(score(['records', 'record']), 10);
    expect(score(['list', 'records'], () => 'list')).toBeCloseTo(score(['list', 'records']) / 2, 10);
    // Another group's term between a group's two: still one.
    expect(score(['list', 'table', 'records'], (t) => (t === 'records' ? 'list' : t))).toBeCloseTo(
      (score(['list', 'table', 'records']) / 3) * 2,
      10,
    );
  });
});
