import { describe, expect, it } from 'vitest';
import { requestIntent } from './request-intent.js';

const intent = (request: string) => requestIntent(request, ['rec']);

describe('requestIntent: one item or several', () => {
  it('reads "a list of" as asking to list, whatever verb comes first', () => {
    expect(intent('is there a way to get a list of all tables?').op).toBe('list');
    expect(intent('get the table').op).toBe('get');
  });

  it('says one item where the verb’s object is singled out, or an id is', () => {
    expect(intent('retrieve a record keyed by field ids').one).toBe(true);
    expect(intent('delete this field').one).toBe(true);
    expect(intent('remove the row by id').one).toBe(true);
    expect(intent('retrieve records keyed by field ids').one).toBe(false);
    expect(intent('find events with an external id').one).toBe(false);
    expect(intent('list records').one).toBe(false);
  });

  it('reads a word that is a verb as often as a noun as the verb’s object ("get a record")', () => {
    expect(intent('get a record').one).toBe(true);
    expect(intent('delete a record').one).toBe(true);
    expect(intent('delete the records').one).toBe(false);
  });

  it('does not read an amount ("a lot of data", "a bunch of rows") as one item', () => {
    expect(intent('when you get a lot of data from the table').one).toBe(false);
    expect(intent('fetch a bunch of rows').one).toBe(false);
  });
});

describe('requestIntent: several items by their number', () => {
  it('reads a number before its plural noun, not before any later word in s nor a span of time', () => {
    expect(intent('delete these 3 records').several).toBe(true);
    expect(intent('list the 2 listed fields').several).toBe(true);
    expect(intent('get a 404 Client error when my script calls get_all').several).toBe(false);
    expect(intent('not sending the events since 4 hours').several).toBe(false);
  });
});

describe('requestIntent: what is the object’s parent', () => {
  it('does not read "to" before a verb, nor "of" after a list or a number, as a parent', () => {
    expect([...intent('is there a way to get a list of all tables for a user?').parentStems]).toEqual([
      'user',
    ]);
    expect(intent('count the number of records').parentStems.size).toBe(0);
    expect(intent('remove a field from the table').parentStems.has('tabl')).toBe(true);
  });

  it('ends a parent with its clause', () => {
    const read = intent('field ids for single records: retrieve a record keyed by field ids');
    expect(read.parentStems.has('singl')).toBe(true);
    expect(read.parentStems.has('retriev')).toBe(false);
  });
});

describe('requestIntent: words searched', () => {
  it('drops a participle that says which objects ("events defined in …"), not what to do', () => {
    expect(intent('trigger custom events defined in HubSpot').text).not.toMatch(/defined/);
    expect(intent('trigger custom events defined in HubSpot').op).toBe('send');
    expect(intent('define custom events in HubSpot').text).toMatch(/define/);
  });

  it('drops "issue" where it reports a problem, not where it names a tracker\'s issue', () => {
    expect(intent('Issue with create(): the record has no fields').text).not.toMatch(/issue/i);
    expect(intent('this is an issue when searching by name').text).not.toMatch(/issue/i);
    expect(intent('issues with the label bug').text).toMatch(/issue/);
    expect(intent('create an issue with a label').text).toMatch(/issue/);
  });
});

describe('requestIntent: the operation, as people and developers say it', () => {
  it.each([
    // "how to …" asks how to do it, not what there is.
    ['How to update the existing records in a table?', 'update'],
    ['how do I delete a record?', 'delete'],
    ['how are the records sorted?', 'read'],
    // A feature asked of a library: what it does, not adding.
    ['Add Get Form Method to Forms', 'get'],
    ['Add a way to query only named fields', 'search'],
    ['feat(airtable): add find record action', 'search'],
    ['add a record to the table', 'create'],
    ['add a field to the table, the way Excel does', 'create'],
    ['Feature request: add records in bulk', 'create'],
    // A part of the asker's own software (a plugin, a route, support for …): what it does.
    ['Add Airtable support for updating the event info', 'update'],
    ['Add an Airtable plugin that reads a table into the CMS', 'read'],
    // A method called in code.
    ['How to define objectPropertyPropname in hubspotClient.events.eventsApi.getPage()?', 'get'],
    ['fields are missing when calling get_all()', 'get'],
    ['feat: add table.upsert() method', 'upsert'],
    ['define an event in HubSpot', 'create'],
    // A verb that only says "do", and the operation's noun.
    ['create a Read query for a table with more than 100 rows', 'search'],
    ['how to perform a search using an exact match for a date field', 'search'],
    ['do an update of the record', 'update'],
    ['create a list of contacts', 'create'],
    ['I would like to paginate through records', 'list'],
    // Building a part of a data integration that reads from the API: its listing.
    ['Source Airtable: new stream Collaborators', 'list'],
    ['Create a document loader for Airtable', 'list'],
    ['create a new record in the table', 'create'],
    // "we have …" asks what there is in a question only.
    ['which bases do we have?', 'list'],
    ['we have any forms?', 'list'],
    ['I have a column that contains dates but I cannot fetch the one record by date', 'get'],
  ])('%s → %s', (request, op) => {
    expect(intent(request).op).toBe(op);
  });

  it('reads a feature asked with no verb for what it does as a bare look-up', () => {
    expect(intent('source-hubspot: add `campaigns` stream').implicit).toBe(true);
    expect(intent('Add Airtable plugin').implicit).toBe(true);
  });
});

describe('requestIntent: "new" beside another verb', () => {
  it('drops "new" where the verb says something other than creating', () => {
    expect(intent('Push a new event to HubSpot').text).not.toMatch(/new/);
    expect(intent('add a new field').text).toMatch(/new/);
    expect(intent('new field in the table').text).toMatch(/new/);
  });
});

describe('requestIntent: a plural pronoun as the object', () => {
  it('reads "remove them" as changing several', () => {
    expect(intent('old records: remove them from the bases').several).toBe(true);
    expect(intent('remove it from the base').several).toBe(false);
  });
});

describe('requestIntent: whose id', () => {
  it('reads "non-external" as the service’s own id', () => {
    expect(intent('register for marketing events hosted locally (non-external events)').idKind).toBe(
      'internal',
    );
    expect(intent('update the event by its external id').idKind).toBe('external');
  });
});

describe('requestIntent: counting', () => {
  it('reads "the number of" as asking how many, not "a (huge) number of", which says there are many', () => {
    expect(intent('get the number of pages').op).toBe('count');
    expect(intent('a huge number of failed entries in the emails').op).not.toBe('count');
    expect(intent('a number of rows were lost').asked).toBe(false);
  });
});

describe('requestIntent: a verb that only says something is done', () => {
  it('reads the operation from its object, not from a noun past a preposition', () => {
    expect(intent('create a read query').op).toBe('search');
    expect(intent('Batch Insert and Batch Delete now do ten records per query').op).toBe('create');
  });
});

describe('requestIntent: a commit’s type', () => {
  it('does not read the "fix" that labels a commit or a pull request as updating data', () => {
    expect(intent('fix(source-airtable): added new mapping for lookup values').op).not.toBe('update');
    expect(intent('[bugfix] website: merge orphaned profiles').op).not.toBe('update');
    expect(intent('fix: update the list action fields').op).toBe('update');
  });
});
