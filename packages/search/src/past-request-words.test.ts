import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { askedWords, ownTerms, PastRequestWords } from './past-request-words.js';
import { type PastRequest, readPastRequests } from './past-requests.js';
import { processTerm, tokenize } from './search-terms.js';
import { TermPostings } from './term-postings.js';

const TOOLS = ['SheetApi.ListSheetRecords', 'SheetApi.AddRecordComment', 'MailApi.ListMarketingEmails'];
const idOf = (name: string) => {
  const id = TOOLS.indexOf(name);
  return id < 0 ? undefined : id;
};
const terms = (...words: string[]) => new Set(words.flatMap((w) => processTerm(w)));
const BM25 = { k: 1.6, b: 0.9, d: 0.5 };
// The index of the tools' own text, as `ToolIndex` builds one (with more fields).
const ownIndex = new MiniSearch<{ id: number; text: string }>({
  fields: ['text'],
  tokenize: (text) => [...tokenize(text)],
  processTerm: (w) => [...processTerm(w)],
});
ownIndex.addAll(
  ['List the records of a table', 'Comment on a record', 'List marketing emails'].map((text, id) => ({
    id,
    text,
  })),
);
const TEXT = new TermPostings(ownIndex, { text: 1 }, BM25);
const OWN = ownTerms(TEXT, TOOLS.length);
const PAST: PastRequest[] = [
  { request: 'Airtable data loader for my records', tools: ['SheetApi.ListSheetRecords'] },
  { request: 'A loader that pages through the table', tools: ['SheetApi.ListSheetRecords'] },
  { request: 'Mention a teammate in a comment', tools: ['SheetApi.AddRecordComment'] },
  { request: 'Ask a tool the catalog lacks about a loader', tools: ['OtherApi.Missing'] },
];
const READ = readPastRequests(PAST, idOf);

describe('ownTerms', () => {
  it("holds each tool's search terms", () => {
    expect(OWN[0]).toEqual(terms('list', 'records', 'table'));
    expect(OWN[2]).toEqual(terms('list', 'marketing', 'emails'));
  });
});

describe('askedWords', () => {
  const words = askedWords(READ, OWN);

  it("adds a past request's words to the tools that answered it, once per request that says them", () => {
    const [loader] = processTerm('loader');
    expect(words[0]!.filter((t) => t === loader)).toHaveLength(2);
    expect(words[1]).toEqual(expect.arrayContaining([...processTerm('teammate')]));
  });

  it("leaves out the words the tool's own text says, and common words", () => {
    for (const t of [...terms('records', 'table', 'comment'), ...terms('for', 'my', 'the')])
      expect(words.flat()).not.toContain(t);
  });

  it('leaves out the past requests of tools the catalog does not have', () => {
    expect(words[2]).toEqual([]);
    expect(words.flat()).not.toContain(processTerm('lacks')[0]);
  });
});

describe('PastRequestWords', () => {
  const index = new PastRequestWords(READ, TEXT, TOOLS.length, BM25);
  const found = (query: string) =>
    index
      .search(
        query.split(' ').flatMap((w) => processTerm(w)),
        () => 1,
        () => true,
      )
      .map((m) => TOOLS[m.id]);

  it('finds a tool by the words people asked for it in, which its own text never says', () => {
    expect(found('an airtable loader')).toEqual(['SheetApi.ListSheetRecords']);
    expect(found('mention a teammate')).toEqual(['SheetApi.AddRecordComment']);
  });

  it('finds nothing by its own words, nor without past requests', () => {
    expect(found('list the records of a table')).toEqual([]);
    expect(
      new PastRequestWords([], TEXT, TOOLS.length, BM25).search(
        processTerm('loader'),
        () => 1,
        () => true,
      ),
    ).toEqual([]);
  });

  it('keeps only the tools asked for', () => {
    const kept = index.search(
      processTerm('loader'),
      () => 1,
      (id) => id !== 0,
    );
    expect(kept).toEqual([]);
  });
});
