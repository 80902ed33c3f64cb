import { describe, expect, it } from 'vitest';
import { requestIntent } from './request-intent.js';
import { processTerm } from './search-terms.js';
import type { SearchableTool } from './searchable-tool.js';
import { paramShapes, toolShape } from './tool-shape.js';

function tool(
  method: string,
  path: string,
  description: string,
  params: Record<string, Record<string, unknown>> = {},
  readOnly = method === 'GET',
): SearchableTool {
  const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  return {
    name: 'DemoApi.Tool',
    toolSet: 'DemoApi',
    description,
    inputSchema: { type: 'object', properties: params, required: pathParams },
    hints: { readOnly },
    endpoint: { method, path, pathParams },
  };
}
const shape = (t: SearchableTool) => toolShape(t, new Set());
const term = (w: string) => processTerm(w)[0];

describe('toolShape', () => {
  it('reads the operation and the object from the method and the path', () => {
    const property = shape(
      tool('DELETE', '/v3/definitions/{name}/property/{prop}', 'Demo: delete a property of a definition.', {
        name: { type: 'string' },
        prop: { type: 'string' },
      }),
    );
    expect(property).toMatchObject({
      op: 'delete',
      item: true,
      head: [term('property')],
      object: 'property',
    });
    expect(property.parents).toContain(term('definitions'));
    expect(shape(tool('GET', '/v3/definitions', 'Demo: list definitions.'))).toMatchObject({
      op: 'list',
      item: false,
      object: 'definition',
    });
  });

  it('takes an action from the last segment, a batch from the path and a link from a bare PUT', () => {
    expect(shape(tool('POST', '/v3/emails/{id}/publish', 'Demo: publish an email.'))).toMatchObject({
      op: 'action',
      actionVerb: 'publish',
    });
    expect(
      shape(tool('POST', '/v3/campaigns/batch/archive', 'Demo: delete several campaigns.')),
    ).toMatchObject({
      op: 'delete',
      batch: true,
      object: 'campaign',
    });
    expect(
      shape(
        tool('PUT', '/v3/campaigns/{id}/assets/{type}/{assetId}', 'Demo: add an asset to a campaign.', {
          id: { type: 'string' },
          type: { type: 'string' },
          assetId: { type: 'string' },
        }),
      ).op,
    ).toBe('link');
  });

  it('asks the description when a path of placeholders only cannot say (list records of a table)', () => {
    expect(shape(tool('GET', '/{base}/{table}', 'Demo: list records (rows) of a table.'))).toMatchObject({
      op: 'list',
      object: 'record',
    });
  });

  it('weighs the ids it takes: the last placeholder is the object, earlier ones its parents', () => {
    const ids = shape(
      tool('GET', '/{base}/{table}/{record}', 'Demo: get one record.', {
        base: { type: 'string', description: 'app…' },
        table: { type: 'string', description: 'tbl… or name' },
        record: { type: 'string', description: 'rec…' },
      }),
    ).ids;
    expect(Object.fromEntries(ids)).toEqual({ 'prefix:rec': 1, 'prefix:app': 0.5, 'prefix:tbl': 0.5 });
    const campaign = shape(
      tool('GET', '/v3/campaigns/{guid}', 'Demo: get one campaign.', {
        guid: { type: 'string', format: 'uuid' },
      }),
    );
    expect(campaign.ids.get('uuid')).toBe(1);
  });

  it('on a path of placeholders only, takes the last one as the object only if the description names it', () => {
    const list = shape(
      tool('GET', '/{base}/{table}', 'Demo: list records of a table.', {
        base: { type: 'string', description: 'app…' },
        table: { type: 'string', description: 'tbl… or name' },
      }),
    );
    // The table is where the records are, as the base is.
    expect(list.ids.get('prefix:tbl')).toBe(0.5);
  });

  it('reads the part of the product a description names before its colon, a mixed-case name as one word', () => {
    const area = (description: string) => shape(tool('POST', '/x/{id}/getRecords', description)).area;
    expect(area('Demo enterprise HyperDB table: read records by primary key.')).toEqual(['enterpris']);
    expect(area('Demo SCIM: list users.')).toEqual(['scim']);
    // Five words before the colon are a sentence, not a name.
    expect(area('Demo lets you read the records: by key.')).toBeUndefined();
  });

  it('tells an id of an email message from an email address', () => {
    const ids = (name: string, schema: Record<string, unknown> = { type: 'string' }) =>
      shape(tool('POST', '/v3/emails/send', 'Demo: send an email.', { [name]: schema })).ids.has('email');
    expect(ids('email_id')).toBe(false);
    expect(ids('crm_email_identifier')).toBe(false);
    expect(ids('sender_email')).toBe(true);
    expect(ids('contact', { type: 'string', description: 'Contact email or internal id.' })).toBe(true);
    expect(ids('to', { type: 'string', format: 'email' })).toBe(true);
  });

  it("reads whose id a tool takes its object by: its placeholders', its parameters' or its description's words", () => {
    const byPath = shape(
      tool('GET', '/v3/events/events/{externalEventId}', 'Demo: get an event.', {
        externalEventId: { type: 'string' },
      }),
    );
    const byParam = shape(
      tool('GET', '/v3/events/{eventId}', 'Demo: get an event.', {
        eventId: { type: 'string', description: 'Internal event id.' },
      }),
    );
    const byObjectId = shape(
      tool('DELETE', '/v3/events/{objectId}', 'Demo: delete an event.', { objectId: { type: 'string' } }),
    );
    const byDescription = shape(
      tool('POST', '/v3/events/batch/delete', 'Demo: delete events by external ids.'),
    );
    expect([byPath.idKind, byParam.idKind, byObjectId.idKind, byDescription.idKind]).toEqual([
      'external',
      'internal',
      'internal',
      'external',
    ]);
    expect(shape(tool('GET', '/v3/forms/{formId}', 'Demo: get a form.')).idKind).toBeUndefined();
  });

  it('makes twins of tools doing one thing to one object, apart from whose id they take', () => {
    const internal = shape(
      tool('PATCH', '/v3/marketing-events/{objectId}', 'Demo: update a marketing event by internal id.', {
        objectId: { type: 'string' },
      }),
    );
    const external = shape(
      tool('PATCH', '/v3/marketing-events/events/{externalEventId}', 'Demo: update a marketing event.', {
        externalEventId: { type: 'string' },
      }),
    );
    const state = shape(
      tool(
        'POST',
        '/v3/marketing-events/events/{externalEventId}/{subscriberState}/upsert',
        'Demo: upsert the state of contacts for a marketing event.',
        { externalEventId: { type: 'string' }, subscriberState: { type: 'string' } },
      ),
    );
    const upsert = shape(
      tool('PUT', '/v3/marketing-events/events/{externalEventId}', 'Demo: upsert a marketing event.', {
        externalEventId: { type: 'string' },
      }),
    );
    expect(internal.twinKey).toBeDefined();
    expect(internal.twinKey).toBe(external.twinKey);
    // A placeholder that takes a value (the state) is part of what is done: no twin of the event's upsert.
    expect(state.twinKey).not.toBe(upsert.twinKey);
    expect(shape(tool('GET', '/v3/forms/{formId}', 'Demo: get a form.')).twinKey).toBeUndefined();
  });
});

describe('requestIntent', () => {
  it('reads the operation from verbs, question forms and phrases', () => {
    expect(requestIntent('what campaigns do we have?', []).op).toBe('list');
    expect(requestIntent('is my export ready yet?', []).op).toBe('read');
    expect(requestIntent('take the trade show line out of the budget', []).op).toBe('delete');
    expect(requestIntent('rename the Leads table', []).op).toBe('update');
    expect(requestIntent('how many people came to the webinar', []).op).toBe('count');
    // A get of a plural object reads several, also when a count stands before the object.
    expect(requestIntent('get more than 100 records', []).op).toBe('read');
    expect(requestIntent('fetch the first 50 rows', []).op).toBe('read');
    // "log" names the object here; the verb is "list".
    expect(requestIntent('audit log export requests list', []).op).toBe('list');
  });

  it('tells the object from its parent: the words after "from", "of", "in"… name the parent', () => {
    const intent = requestIntent('remove Bob from the Sales base', []);
    expect(intent.op).toBe('delete');
    expect(intent.parentStems.has(processTerm('base')[0]!)).toBe(true);
    expect(intent.parentStems.has('bob')).toBe(false);
  });

  it('finds identifiers by shape and leaves them out of the words to match', () => {
    const intent = requestIntent(
      'copy recA1s2D3f4G5h6J7 to ann@corp.com for 3f1c2a9e-6b7d-4c1e-9a0f-2d5b8e7c1a44',
      ['rec', 'app'],
    );
    expect([...intent.ids].sort()).toEqual(['email', 'prefix:rec', 'uuid']);
    expect(intent.text).not.toMatch(/rec|ann|3f1c/);
    // A word that merely starts like a prefix is no id.
    expect(requestIntent('recent application records', ['rec', 'app']).ids.size).toBe(0);
  });

  it('starts a clause after punctuation: a noun-like verb there is the verb', () => {
    expect(requestIntent('HubSpot: record that contact 5 completed the trial event', []).op).toBe('send');
    expect(requestIntent('Budget tab: plan 5000 for trade shows', []).op).toBe('create');
  });

  it('reads "make", "give" and "request" by what follows them', () => {
    expect(requestIntent('make a new signup form', []).op).toBe('create');
    expect(requestIntent('make usrA1b2C3d4E5f6G7 read only in the workspace', ['usr']).op).toBe('update');
    expect(requestIntent('give me the workflows 5512 and 5513', []).op).toBe('get');
    expect(requestIntent('give ann@corp.com edit access to the base', []).op).toBe('create');
    expect(requestIntent('request an audit log export for January', []).op).toBe('create');
  });

  it('does not take a noun-like verb before an id for the verb ("comments on record rec…")', () => {
    const intent = requestIntent('comments on record recA1s2D3f4G5h6J7', ['rec']);
    expect(intent).toMatchObject({ op: 'read', implicit: true });
    expect(requestIntent('audit log export requests list', []).op).toBe('list');
  });

  it('reads a bare noun phrase as a look-up, less surely than a verb', () => {
    expect(requestIntent('email 4242 draft', [])).toMatchObject({ op: 'read', implicit: true });
    expect(requestIntent('show email 4242', [])).toMatchObject({ op: 'get', implicit: false });
    // A read verb with a plural object may want a list as well as one.
    expect(requestIntent('show rows of the Orders table', []).op).toBe('read');
  });

  it('keeps apart nouns said in the plural and in the singular', () => {
    const intent = requestIntent('comments on the record', []);
    expect(intent.plural.has(processTerm('comment')[0]!)).toBe(true);
    expect(intent.singular.has(processTerm('record')[0]!)).toBe(true);
    expect(intent.plural.has(processTerm('record')[0]!)).toBe(false);
  });

  it('takes a participle after a determiner for a state, not an action ("the published email")', () => {
    expect(requestIntent('send the published email to ann@x.com', []).adjectives.has('publish')).toBe(true);
    expect(requestIntent('publish the email', []).adjectives.size).toBe(0);
  });

  it('starts the parent part only after a word naming the object', () => {
    // "in" before any word naming the object does not start the parent.
    const budget = requestIntent(
      'what is in budget item 5 of campaign 3f1c2a9e-6b7d-4c1e-9a0f-2d5b8e7c1a44?',
      [],
    );
    expect(budget.parentStems.has(processTerm('budget')[0]!)).toBe(false);
    expect(budget.parentStems.has(processTerm('campaign')[0]!)).toBe(true);
  });

  it("reads whose id the request names an object by: its words, else the id's shape", () => {
    expect(requestIntent('delete the event by its external id', []).idKind).toBe('external');
    expect(requestIntent("search our app's events by id", []).idKind).toBe('external');
    expect(requestIntent('rename event object 88123456', []).idKind).toBe('internal');
    expect(requestIntent('cancel webinar wb-31', []).idKind).toBe('external');
    expect(requestIntent('cancel webinar 52001', []).idKind).toBe('internal');
    expect(requestIntent('cancel the webinar', []).idKind).toBeUndefined();
  });

  it('tells one item from several', () => {
    expect(requestIntent('delete rows 4, 5 and 6', []).several).toBe(true);
    expect(requestIntent('create 12 campaigns', []).several).toBe(true);
    expect(requestIntent('delete one row', []).several).toBe(false);
  });
});

describe('paramShapes', () => {
  it('reads an id prefix from a parameter description, not from a long text cut short', () => {
    expect(paramShapes('base_id', { description: 'app…' })).toEqual(['prefix:app']);
    expect(paramShapes('actor', { description: 'Acting user (usr…)' })).toEqual(['prefix:usr']);
    expect(paramShapes('who', { description: 'usr… or ugp…' })).toEqual(['prefix:usr', 'prefix:ugp']);
    expect(
      paramShapes('start_time', {
        description: 'IP addresses that were added to your account in the time window will be ret…',
      }),
    ).toEqual([]);
  });
});
