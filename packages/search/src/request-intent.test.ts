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
});

describe('requestIntent: questions about how to do something', () => {
  it('reads "how to …" by its verb, not as a look-up', () => {
    expect(intent('How to update the existing records in a table?').op).toBe('update');
    expect(intent('how do I delete a record?').op).toBe('delete');
    expect(intent('how are the records sorted?').op).toBe('read');
  });
});

describe('requestIntent: a feature asked of a library', () => {
  it('reads "add a … method / a way to …" by what the feature does, not as adding', () => {
    expect(intent('Add Get Form Method to Forms').op).toBe('get');
    expect(intent('source-hubspot: add `campaigns` stream').implicit).toBe(true);
    expect(intent('Add a way to query only named fields').op).toBe('search');
    expect(intent('add a record to the table').op).toBe('create');
    expect(intent('add a field to the table, the way Excel does').op).toBe('create');
    expect(intent('feat(airtable): add find record action').op).toBe('search');
    expect(intent('Feature request: add records in bulk').op).toBe('create');
  });
});

describe('requestIntent: a method called in code', () => {
  it('reads the operation from the method’s name', () => {
    expect(
      intent('How to define objectPropertyPropname in hubspotClient.events.eventsApi.getPage()?').op,
    ).toBe('get');
    expect(intent('fields are missing when calling get_all()').op).toBe('get');
    expect(intent('feat: add table.upsert() method').op).toBe('upsert');
    expect(intent('define an event in HubSpot').op).toBe('create');
  });
});

describe('requestIntent: a verb that only says "do"', () => {
  it('reads the operation from the noun after it', () => {
    expect(intent('create a Read query for a table with more than 100 rows').op).toBe('search');
    expect(intent('how to perform a search using an exact match for a date field').op).toBe('search');
    expect(intent('do an update of the record').op).toBe('update');
    expect(intent('create a list of contacts').op).toBe('create');
  });
});

describe('requestIntent: listing verbs', () => {
  it('reads "paginate" as listing', () => {
    expect(intent('I would like to paginate through records').op).toBe('list');
  });
});

describe('requestIntent: questions about what there is', () => {
  it('reads "we have …?" as listing, not "I have …" in a story', () => {
    expect(intent('which bases do we have?').op).toBe('list');
    expect(intent('we have any forms?').op).toBe('list');
    expect(intent('I have a column that contains dates but I cannot fetch the records by date').op).not.toBe(
      'list',
    );
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
