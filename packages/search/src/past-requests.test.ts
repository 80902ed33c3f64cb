import { describe, expect, it } from 'vitest';
import { type PastRequest, PastRequests } from './past-requests.js';
import { W } from './relevance.js';
import { describedTool, SHEET_AND_MAIL_TOOLS } from './test-support/described-tool.js';
import { ToolIndex } from './tool-index.js';
import { operationKind, toolShape } from './tool-shape.js';

const tools = [
  ...SHEET_AND_MAIL_TOOLS,
  describedTool('CloudHostApi.ListDomainRecords', 'CloudHost: list the DNS records of a domain.', true, [
    'domain',
  ]),
];
const past: PastRequest[] = [
  {
    request: 'Only the first 100 rows come back, the rest are missing',
    tools: ['SheetApi.ListSheetRecords'],
  },
  { request: 'Pagination stops after 100 items', tools: ['SheetApi.ListSheetRecords'] },
  { request: 'How do I mark people as attended at our webinar?', tools: ['MailApi.RegisterByEmail'] },
  { request: 'How do I answer a teammate note on a row?', tools: ['SheetApi.AddRecordComment'] },
  { request: 'A tool this catalog does not have', tools: ['OtherApi.Missing'] },
];
const plain = new ToolIndex(tools);
const leaning = new ToolIndex(tools, { pastRequests: past });
const names = (index: ToolIndex, query: string) => index.search(query, { limit: 3 }).map((m) => m.name);

describe('PastRequests', () => {
  const ids = new Map(tools.map((t, i) => [t.name, i]));
  const kindOf = (id: number) => operationKind(toolShape(tools[id]!, new Set()));
  const requests = new PastRequests(past, (name) => ids.get(name), kindOf);

  it('keeps the past requests whose tools the catalog has', () => {
    expect(requests.size).toBe(4);
  });

  it('votes in full for the tool of a past request asked again in other words', () => {
    const votes = requests.consult('the rest of the rows are missing after 100').votes;
    expect(votes.get(ids.get('SheetApi.ListSheetRecords')!)).toBe(1);
    expect(votes.has(ids.get('MailApi.RegisterByEmail')!)).toBe(false);
  });

  it('votes little for a request about something no past request asked about', () => {
    // "records" is a word the past requests share with it (as rows); "DNS" and "domain" are not.
    const votes = requests.consult('list the DNS records of a domain').votes;
    expect(Math.max(0, ...votes.values())).toBeLessThan(0.5);
  });

  it('votes with a single past request, whose every word all of them say', () => {
    const one = new PastRequests([past[0]!], (name) => ids.get(name), kindOf);
    expect(
      one.consult('the rest of the rows are missing').votes.get(ids.get('SheetApi.ListSheetRecords')!),
    ).toBeGreaterThan(0.9);
  });

  it('counts a phrase shared, not only its words', () => {
    // Both past requests say "new", "comment" and "row"; one says "new comment", the other "new row".
    const byPhrase = new PastRequests(
      [
        { request: 'a new comment on the row', tools: ['SheetApi.AddRecordComment'] },
        { request: 'comment on the new row', tools: ['SheetApi.ListSheetRecords'] },
      ],
      (name) => ids.get(name),
      kindOf,
    );
    const comment = ids.get('SheetApi.AddRecordComment')!;
    const row = ids.get('SheetApi.ListSheetRecords')!;
    const a = byPhrase.consult('a new comment shows up on the row').votes;
    expect(a.get(comment)).toBeGreaterThan(a.get(row)!);
    const b = byPhrase.consult('someone left a comment on a new row').votes;
    expect(b.get(row)).toBeGreaterThan(b.get(comment)!);
  });

  it('tells apart two tools the nearest requests vote for in full, by the word that set them apart', () => {
    const asked = [
      ['my nightly script reads the rows of the table', 'SheetApi.ListSheetRecords'],
      ['the nightly export reads every row of a table', 'SheetApi.ListSheetRecords'],
      ['my script reads rows past the first 100', 'SheetApi.ListSheetRecords'],
      ['reads the rows of a view in my script', 'SheetApi.ListSheetRecords'],
      ['read the thread under a record', 'SheetApi.GetRecordComments'],
      ['how do I read the whole thread on a record', 'SheetApi.GetRecordComments'],
      ['my script reads the thread of each record', 'SheetApi.GetRecordComments'],
      ['the nightly export reads every thread', 'SheetApi.GetRecordComments'],
    ].map(([request, tool]) => ({ request: request!, tools: [tool!] }));
    const both = new PastRequests(asked, (name) => ids.get(name), kindOf);
    const rows = ids.get('SheetApi.ListSheetRecords')!;
    const thread = ids.get('SheetApi.GetRecordComments')!;
    // Both are listings: the kinds' model cannot tell them apart, and each has votes in full.
    const { votes, said } = both.consult('my nightly script reads the thread of a record');
    expect([votes.get(rows), votes.get(thread)]).toEqual([1, 1]);
    expect(said(thread)).toBeGreaterThan(said(rows) + 0.2);
    const weight = W.pastTool;
    W.pastTool = 0;
    try {
      const flat = both.consult('my nightly script reads the thread of a record').said;
      expect(flat(thread)).toBeCloseTo(flat(rows), 10);
    } finally {
      W.pastTool = weight;
    }
  });

  it('votes for nothing without a word in common', () => {
    expect(requests.consult('rotate the signing keys').votes.size).toBe(0);
    expect(new PastRequests([], () => 0, kindOf).consult('rows missing').votes.size).toBe(0);
  });
});

describe('ToolIndex with past requests', () => {
  it('finds the tool a past request like this one needed, when the catalog shares no word with it', () => {
    expect(names(plain, 'the rest of the items are missing after 100')).toEqual([]);
    expect(names(leaning, 'the rest of the items are missing after 100')[0]).toBe(
      'SheetApi.ListSheetRecords',
    );
  });

  it('leans on them where its first tools are nearly level', () => {
    // A note is no word of the catalog's: the records and the comments tools are level on "row".
    expect(names(plain, 'answer a note on a row')[0]).toBe('SheetApi.ListSheetRecords');
    expect(names(leaning, 'answer a note on a row')[0]).toBe('SheetApi.AddRecordComment');
  });

  it('keeps the answer where the catalog answers the request plainly', () => {
    for (const query of [
      'delete a record of a table',
      'list marketing emails',
      'list the records of a domain',
    ])
      expect(names(leaning, query)).toEqual(names(plain, query));
  });

  it('leans on them whatever the lead where someone tells at length what went wrong', () => {
    // The same words lend the comments tool a lead; said in a few words they are an instruction.
    const short = 'comments on a record are missing after 100';
    expect(names(leaning, short)[0]).toBe(names(plain, short)[0]);
    const told =
      'I list the comments on a record in my script every night, and only the first 100 rows of the table come back, the rest are missing';
    expect(names(plain, told)[0]).toBe('SheetApi.GetRecordComments');
    expect(names(leaning, told)[0]).toBe('SheetApi.ListSheetRecords');
  });

  it('weighs the kind of operation the past requests were asked with, on objects they never named', () => {
    // No past request is about comments; those that say "the first 100 … the rest are missing"
    // needed a listing, so listing the comments outranks adding one, which "replies" names.
    const told =
      'the replies to comments on a record stop after the first 100 in my script and the rest are missing';
    const order = () => {
      const found = names(leaning, told);
      return found.indexOf('SheetApi.GetRecordComments') < found.indexOf('SheetApi.AddRecordComment');
    };
    // The tools' own model is left out: it lowers the comments' adding tool too, as its one
    // past request was asked otherwise.
    const weights = { ...W };
    W.pastTool = 0;
    try {
      expect(order()).toBe(true);
      W.pastOperation = 0;
      expect(order()).toBe(false);
    } finally {
      Object.assign(W, weights);
    }
  });

  it("counts the words a tool's past requests said as words of its text, whatever the lead", () => {
    // "missing" and "100" are no words of the catalog's; the records tool's past requests say them.
    const short = 'comments on a record are missing after 100';
    expect(names(plain, short)).toEqual([
      'SheetApi.GetRecordComments',
      'SheetApi.AddRecordComment',
      'SheetApi.ListSheetRecords',
    ]);
    expect(names(leaning, short)).toEqual([
      'SheetApi.GetRecordComments',
      'SheetApi.ListSheetRecords',
      'SheetApi.AddRecordComment',
    ]);
  });

  it('counts them for the tools of the product a request names, not for another product', () => {
    // Asked as the sheets' missing rows were, but of Mail: its listing, not the sheets'.
    const told =
      'the rest are missing after the first 100 in my Mail script every night when it pages through them';
    expect(names(leaning, told)[0]).toBe('MailApi.ListMarketingEmails');
    expect(names(leaning, told)).toContain('SheetApi.ListSheetRecords');
  });

  it('narrows to a tool set as before, past requests included', () => {
    const found = leaning.search('the rest of the items are missing after 100', { toolSet: 'MailApi' });
    expect(found.map((m) => m.toolSet)).not.toContain('SheetApi');
  });
});
