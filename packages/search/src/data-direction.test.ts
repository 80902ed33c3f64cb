import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dataDirection, directedOperation } from './data-direction.js';
import { requestIntent } from './request-intent.js';
import type { SearchableTool } from './searchable-tool.js';
import { ToolIndex } from './tool-index.js';

// The products as the index reads them from the tools' descriptions: search terms, stemmed.
const vendors = new Set(['airtabl', 'hubspot', 'customerio']);

describe('dataDirection', () => {
  it('reads a product named after "to" or "into" as where the data goes', () => {
    expect(dataDirection('Save new Google Sheets rows to Airtable', vendors)).toBe('into');
    expect(dataDirection('log the form messages into an Airtable base', vendors)).toBe('into');
    expect(dataDirection('send signups to Customer.io', vendors)).toBe('into');
  });

  it('reads a product named after "from" as where the data comes from', () => {
    expect(dataDirection('fetch the events from our Airtable base', vendors)).toBe('out');
    expect(dataDirection('Create Asana tasks from new Airtable records', vendors)).toBe('out');
  });

  it("reads a product's things sent to another place as coming out of it", () => {
    expect(dataDirection('Post new Airtable records to Slack', vendors)).toBe('out');
    expect(dataDirection('Add new Airtable records in views to Google Sheets', vendors)).toBe('out');
    expect(dataDirection('export airtable tables to csv', vendors)).toBe('out');
  });

  it('reads no direction in "to" right after the name, before a verb or a number, or far after', () => {
    expect(dataDirection('this allows Airtable to perform typecasting', vendors)).toBeUndefined();
    expect(dataDirection('airtable number fields set to 0', vendors)).toBeUndefined();
    expect(dataDirection('Airtable records to update in bulk', vendors)).toBeUndefined();
    expect(
      dataDirection('an Airtable base with many linked fields that point to another table', vendors),
    ).toBeUndefined();
  });

  it("reads a product's things sent on only in the clause that names them", () => {
    expect(
      dataDirection('How to pass a datetime in airtable: I am trying to pass datetime.now()', vendors),
    ).toBeUndefined();
    expect(dataDirection('Airtable - Post new Airtable records to Slack', vendors)).toBe('out');
  });

  it('reads no direction in the "to" of what a product is asked to do ("for Airtable to accept")', () => {
    expect(dataDirection('Add an option for the Airtable node to accept field IDs', vendors)).toBeUndefined();
    expect(dataDirection('typecast will ask the Airtable API to try and infer', vendors)).toBeUndefined();
  });

  it('says nothing where no product is named there, or both ways are', () => {
    expect(dataDirection('move the rows to another table', vendors)).toBeUndefined();
    expect(dataDirection('add a row to the Leads table in Airtable', vendors)).toBeUndefined();
    expect(dataDirection('sync contacts from HubSpot to Airtable', vendors)).toBeUndefined();
  });
});

describe('directedOperation', () => {
  const op = (request: string, direction: 'into' | 'out') =>
    directedOperation(requestIntent(request, []), direction);

  it('reads out of a product by listing, whatever the other end does', () => {
    expect(op('Create Asana tasks from new Airtable records', 'out')).toBe('list');
    expect(op('events pulled from Airtable', 'out')).toBe('list');
  });

  it('writes into a product by creating', () => {
    expect(op('contact form messages to Airtable', 'into')).toBe('create');
  });

  it('keeps an operation that already says what is done there, and a question', () => {
    expect(op('delete the old rows from Airtable', 'out')).toBe('delete');
    expect(op('send the signup events to Customer.io', 'into')).toBe('send');
    expect(op('who has access to the Airtable base?', 'into')).not.toBe('create');
  });
});

describe('ToolIndex and the direction of the data', () => {
  const tools = JSON.parse(
    readFileSync(new URL('../eval/catalog.json', import.meta.url), 'utf8'),
  ) as SearchableTool[];
  const index = new ToolIndex(tools);

  it('finds the listing where the request takes records out of the product to another', () => {
    expect(index.search('Create Asana tasks from new Airtable records', { limit: 1 })[0]?.name).toBe(
      'GridApi.ListGridRecords',
    );
  });

  it('leaves out the verb of the other end, which would find the tools that do it here', () => {
    // The upload is S3's, of what is read out of Airtable: nothing is uploaded to Airtable.
    const found = index.search('upload records from Airtable to S3', { limit: 3 }).map((m) => m.name);
    expect(found[0]).toBe('GridApi.ListGridRecords');
    expect(found).not.toContain('GridApi.UploadAttachmentToGrid');
  });
});
