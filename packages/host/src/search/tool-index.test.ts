import { describe, expect, it } from 'vitest';
import type { ToolInfo } from '../host.js';
import { processTerm, queryIntent, tokenize } from './search-terms.js';
import { ToolIndex } from './tool-index.js';

function tool(name: string, description: string, readOnly: boolean, params: string[] = []): ToolInfo {
  return {
    name,
    toolSet: name.split('.')[0]!,
    description,
    inputSchema: {
      type: 'object',
      properties: Object.fromEntries(params.map((p) => [p, { type: 'string' }])),
    },
    annotations: {
      readOnlyHint: readOnly,
      destructiveHint: !readOnly,
      idempotentHint: false,
      openWorldHint: true,
    },
  };
}

const tools = [
  tool('SheetApi.ListSheetRecords', 'Sheets: list records of a table, with a filter formula.', true, [
    'table_id',
  ]),
  tool('SheetApi.DeleteSheetRecord', 'Sheets: delete one record of a table.', false, ['record_id']),
  tool('SheetApi.GetRecordComments', 'Sheets: list the comments on a record.', true, ['record_id']),
  tool('SheetApi.AddRecordComment', 'Sheets: comment on a record, or reply to a comment.', false, [
    'record_id',
  ]),
  tool('MailApi.ListMarketingEmails', 'Mail: list marketing emails.', true),
  tool('MailApi.GetMarketingEvent', 'Mail: get a marketing event by id.', true, ['event_id']),
  tool('MailApi.RegisterByEmail', "Mail: record contacts' attendance by email.", false, ['event_id']),
];
const index = new ToolIndex(tools);
const top = (query: string, toolSet?: string) => index.search(query, { toolSet }).map((m) => m.name);

describe('search terms', () => {
  it('splits names and text into words, camelCase and punctuation included', () => {
    expect(tokenize('ListGridRecords')).toEqual(['List', 'Grid', 'Records']);
    expect(tokenize('send to Customer.io, A/B test')).toEqual(['send', 'to', 'customerio', 'abtest', 'test']);
  });

  it('maps the words users say to the words the catalog says, stemmed', () => {
    expect(processTerm('rows')).toEqual(processTerm('record'));
    expect(processTerm('newsletter')).toEqual([...processTerm('marketing'), ...processTerm('email')]);
    expect(processTerm('the')).toEqual([]);
  });

  it('tells a request to look from a request to change', () => {
    expect(queryIntent('show the comments on a row')).toBe('read');
    expect(queryIntent('delete a row')).toBe('write');
    expect(queryIntent('what can I delete')).toBeUndefined();
  });
});

describe('ToolIndex', () => {
  it('finds a tool by the words users use (rows for records, webinar for marketing event)', () => {
    expect(top('get all the rows of my table')[0]).toBe('SheetApi.ListSheetRecords');
    expect(top('look up the webinar 42')[0]).toBe('MailApi.GetMarketingEvent');
    expect(top('newsletters we sent')[0]).toBe('MailApi.ListMarketingEmails');
  });

  it('prefers tools that only read when the request only asks to look, and the other way round', () => {
    expect(top('show the comments on a record')[0]).toBe('SheetApi.GetRecordComments');
    expect(top('reply to the comment on a record')[0]).toBe('SheetApi.AddRecordComment');
  });

  it('takes an email address in a request as a hint for tools that take people by email', () => {
    expect(top('mark jane@example.com as attended')[0]).toBe('MailApi.RegisterByEmail');
  });

  it('filters by tool set, limits the count and returns what search_tools shows', () => {
    expect(top('record', 'mailapi')).toEqual(['MailApi.RegisterByEmail']);
    const found = index.search('record', { limit: 2 });
    expect(found).toHaveLength(2);
    expect(found[0]).toMatchObject({ toolSet: 'SheetApi', readOnly: expect.any(Boolean) });
    expect(found[0]!.score).toBeGreaterThanOrEqual(found[1]!.score);
  });

  it('finds nothing for a request of common words only', () => {
    expect(index.search('what is this')).toEqual([]);
  });
});
