import { describe, expect, it } from 'vitest';
import { type PastRequest, PastRequests, titleTermsOf } from './past-requests.js';
import { W } from './relevance.js';
import { requestTitle } from './request-title.js';
import { SHEET_AND_MAIL_TOOLS } from './test-support/described-tool.js';
import { ToolIndex } from './tool-index.js';
import { operationKind, toolShape } from './tool-shape.js';

describe('requestTitle', () => {
  it('reads the part before the first colon as the title, where it says an operation', () => {
    expect(requestTitle('Record create fails: whenever I try to create a record nothing happens')).toBe(
      'Record create fails',
    );
    expect(requestTitle('Upserts on table: the API supports upsert now: keyed on a field')).toBe(
      'Upserts on table',
    );
  });

  it('skips a label before the title: a commit type, a tag, a product', () => {
    expect(requestTitle('[ENG-3906] feat(hubspot/marketing): Read Forms: all of them')).toBe('Read Forms');
    expect(requestTitle('docs: add a guide for tracking events: with examples')).toBe(
      'add a guide for tracking events',
    );
    expect(requestTitle('Airtable: update many records at once: ten at a time')).toBe(
      'update many records at once',
    );
  });

  it('finds none in a request of one part, or where the title says no operation', () => {
    expect(requestTitle('add a row to the Leads table')).toBeUndefined();
    expect(requestTitle('feat: add find record action')).toBeUndefined();
    expect(
      requestTitle('Investigate Airtable API: what options there are for pulling in data'),
    ).toBeUndefined();
    expect(titleTermsOf('list the rows of the Leads table').size).toBe(0);
  });
});

describe('past requests compared by their titles', () => {
  const tools = SHEET_AND_MAIL_TOOLS;
  const ids = new Map(tools.map((t, i) => [t.name, i]));
  const kindOf = (id: number) => operationKind(toolShape(tools[id]!, new Set()));
  // The same words in both, each asking in its title for what the other's body says in passing.
  const past: PastRequest[] = [
    { request: 'Add a comment to a row: the list of rows shows it', tools: ['SheetApi.AddRecordComment'] },
    { request: 'List the rows: add a comment to a row and it shows', tools: ['SheetApi.ListSheetRecords'] },
  ];
  const requests = new PastRequests(past, (name) => ids.get(name), kindOf);
  const comment = ids.get('SheetApi.AddRecordComment')!;
  const list = ids.get('SheetApi.ListSheetRecords')!;

  it('votes for the past request whose title asks what the title asks', () => {
    const a = requests.consult('Adding a comment to a row fails: the list of rows never shows it').votes;
    expect(a.get(comment)).toBeGreaterThan(a.get(list)!);
    const b = requests.consult('Listing the rows fails: a comment added to a row never shows').votes;
    expect(b.get(list)).toBeGreaterThan(b.get(comment)!);
  });

  it('counts a title no more than the body where titles weigh as much', () => {
    const titlePast = W.titlePast;
    W.titlePast = 1;
    try {
      const level = new PastRequests(past, (name) => ids.get(name), kindOf);
      const a = level.consult('Adding a comment to a row fails: the list of rows never shows it').votes;
      const b = level.consult('Listing the rows fails: a comment added to a row never shows').votes;
      // Without the titles, one of the two requests goes to the other's tool.
      expect(a.get(comment)! > a.get(list)! && b.get(list)! > b.get(comment)!).toBe(false);
    } finally {
      W.titlePast = titlePast;
    }
  });
});

describe('ToolIndex weighing a title', () => {
  const index = new ToolIndex(SHEET_AND_MAIL_TOOLS);
  const first = (query: string) => index.search(query, { limit: 1 })[0]?.name;
  const withTitleText = <T>(weight: number, f: () => T): T => {
    const titleText = W.titleText;
    W.titleText = weight;
    try {
      return f();
    } finally {
      W.titleText = titleText;
    }
  };
  // The title asks for the emails; the body's story says records, tables and comments more often.
  const story = 'Listing the marketing emails fails: deleting a record of the table and its comments works';

  it("finds the tool the title asks for over the one the body's words lean to", () => {
    expect(first(story)).toBe('MailApi.ListMarketingEmails');
    expect(withTitleText(1, () => first(story))).not.toBe('MailApi.ListMarketingEmails');
  });

  it('ranks a request of one part as before', () => {
    const plain = 'delete one record of the table, then list the marketing emails';
    const scores = (weight: number) => withTitleText(weight, () => index.search(plain).map((m) => m.score));
    expect(scores(W.titleText)).toEqual(scores(1));
  });
});
