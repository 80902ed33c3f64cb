import { describe, expect, it } from 'vitest';
import { requestIntent } from './request-intent.js';
import { gerundVerb, nominalVerb } from './verb-forms.js';

const known = new Set(['create', 'send', 'drop', 'update', 'get', 'list', 'delete']);
const isVerb = (v: string) => known.has(v);

describe('gerundVerb', () => {
  it('finds the verb of an -ing form, its e or doubled consonant restored', () => {
    expect(gerundVerb('creating', isVerb)).toBe('create');
    expect(gerundVerb('sending', isVerb)).toBe('send');
    expect(gerundVerb('dropping', isVerb)).toBe('drop');
  });

  it('leaves -ing forms that are nouns or say what happens to the asker', () => {
    expect(gerundVerb('getting', isVerb)).toBeUndefined();
    expect(gerundVerb('listing', isVerb)).toBeUndefined();
    expect(gerundVerb('missing', isVerb)).toBeUndefined();
    expect(gerundVerb('update', isVerb)).toBeUndefined();
  });
});

describe('requestIntent: a verb said in its -ing form', () => {
  it('reads the -ing form as the request’s verb', () => {
    expect(requestIntent('422 error when batch deleting 1 record', []).op).toBe('delete');
    expect(requestIntent('Doesn’t seem to be updating the table', []).op).toBe('update');
    expect(requestIntent('I am getting an error', []).op).toBe('read');
  });
});

describe('requestIntent: an operation named by its noun', () => {
  it('reads the noun of an operation where no verb says one', () => {
    expect(nominalVerb('deletion')).toBe('delete');
    expect(requestIntent('Add support for batch record deletion', []).op).toBe('delete');
    expect(requestIntent('Airtable creation directly from the backend', []).op).toBe('create');
    expect(requestIntent('list the record creation times', []).op).toBe('list');
  });
});
