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
const vocabulary = new SetVocabulary(
  new TermPostings(mini, { text: 1 }, { k: 1.2, b: 0.75, d: 0.5 }).documents(),
  docs.map(([set]) => set),
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
});
