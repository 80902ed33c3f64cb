import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { SetVocabulary } from './set-vocabulary.js';
import { TermPostings } from './term-postings.js';

const docs = [
  ['Sheets', 'list records of a table filtered by a formula'],
  ['Sheets', 'create a table with fields'],
  ['Sheets', 'update a field of a table'],
  ['Dns', 'update a record of a domain'],
  ['Dns', 'list domains'],
  ['Dns', 'create a domain'],
  ['Dns', 'delete a domain'],
] as const;
const mini = new MiniSearch<{ id: number; text: string }>({ fields: ['text'] });
mini.addAll(docs.map(([, text], id) => ({ id, text })));
const postings = new TermPostings(mini, { text: 1 }, { k: 1.2, b: 0.75, d: 0.5 });
const vocabulary = new SetVocabulary(
  postings.documents(),
  docs.map(([set]) => set),
);
const acrossSets = new SetVocabulary(
  postings.documents(),
  docs.map(([set]) => set),
  { acrossSets: true },
);

describe('SetVocabulary', () => {
  it('favours the tool set that speaks more of the request, not the one that shares a word by chance', () => {
    const fit = vocabulary.fit(['update', 'record', 'table', 'formula']);
    expect(fit.get('Sheets')).toBe(1);
    expect(fit.get('Dns')).toBeLessThan(0.5);
  });

  it('gives nothing to a set that shares no word, and nothing at all for unknown words', () => {
    expect(vocabulary.fit(['domain']).get('Sheets')).toBeUndefined();
    expect(vocabulary.fit(['zebra']).size).toBe(0);
  });

  it('across sets, counts a word every set speaks for less than one only the fitting set speaks', () => {
    // "update" is said by both sets, "formula" by Sheets only: the set that shares just the
    // common word fits less once the word's spread over the sets is weighed.
    const terms = ['update', 'formula'];
    expect(acrossSets.fit(terms).get('Sheets')).toBe(1);
    expect(acrossSets.fit(terms).get('Dns')!).toBeLessThan(vocabulary.fit(terms).get('Dns')!);
    expect(acrossSets.fit(terms).get('Dns')!).toBeGreaterThan(0);
  });
});
