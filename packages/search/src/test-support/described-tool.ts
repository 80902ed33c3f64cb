import type { SearchableTool } from '../searchable-tool.js';

/** A tool described as the search reads one: name, description, parameters' names, whether it only reads. */
export function describedTool(
  name: string,
  description: string,
  readOnly: boolean,
  params: string[] = [],
): SearchableTool {
  return {
    name,
    toolSet: name.split('.')[0]!,
    description,
    inputSchema: {
      type: 'object',
      properties: Object.fromEntries(params.map((p) => [p, { type: 'string' }])),
    },
    hints: { readOnly },
  };
}

/** A small catalog of two products whose tools people confuse: sheets' records and comments, mail's emails and events. */
export const SHEET_AND_MAIL_TOOLS: SearchableTool[] = [
  describedTool(
    'SheetApi.ListSheetRecords',
    'Sheets: list records of a table, with a filter formula.',
    true,
    ['table_id'],
  ),
  describedTool('SheetApi.DeleteSheetRecord', 'Sheets: delete one record of a table.', false, ['record_id']),
  describedTool('SheetApi.GetRecordComments', 'Sheets: list the comments on a record.', true, ['record_id']),
  describedTool('SheetApi.AddRecordComment', 'Sheets: comment on a record, or reply to a comment.', false, [
    'record_id',
  ]),
  describedTool('MailApi.ListMarketingEmails', 'Mail: list marketing emails.', true),
  describedTool('MailApi.GetMarketingEvent', 'Mail: get a marketing event by id.', true, ['event_id']),
  describedTool('MailApi.RegisterByEmail', "Mail: record contacts' attendance by email.", false, [
    'event_id',
  ]),
];
