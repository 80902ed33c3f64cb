import { describe, expect, it } from 'vitest';
import { termsOf } from './past-requests.js';
import { RequestClassifier } from './request-classifier.js';

// Past requests about several objects: how people ask for a listing, a new item, one item gone.
const examples = [
  ['Only the first 100 rows come back, the rest are missing', 'list'],
  ['Pagination of the contacts stops after 100, how do I get the rest?', 'list'],
  ['How do I use the offset to fetch the next page of events?', 'list'],
  ['fetch every record through a view, past the first page', 'list'],
  ['Insert a new row when someone fills in the form', 'create'],
  ['create contacts from our signup page', 'create'],
  ['add an event for each new order', 'create'],
  ['Remove this one record by its id', 'delete1'],
  ['delete a single contact by id', 'delete1'],
].map(([request, kind]) => ({ terms: termsOf(request!), labels: [kind!] }));

const best = (p: Map<string, number>) => [...p].sort((a, b) => b[1] - a[1])[0]?.[0];

describe('RequestClassifier', () => {
  const model = new RequestClassifier(examples);

  it('learns the words each kind of operation is asked with, whatever the object', () => {
    // Comments are no object any past request names: the paging words say a listing.
    expect(
      best(model.probabilities(termsOf('the comments stop after the first page, the rest are missing'))),
    ).toBe('list');
    expect(best(model.probabilities(termsOf('insert a new comment for each order')))).toBe('create');
    expect(best(model.probabilities(termsOf('remove one comment by its id')))).toBe('delete1');
  });

  it('gives a probability to each kind, summing to 1', () => {
    const p = model.probabilities(termsOf('the rest of the comments are missing'));
    expect([...p.keys()].sort()).toEqual(['create', 'delete1', 'list']);
    expect([...p.values()].reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
  });

  it('falls back on how often each kind was asked for a request of words none of them said', () => {
    const p = model.probabilities(termsOf('rotate the signing keys'));
    expect(best(p)).toBe('list');
    expect(p.get('list')!).toBeGreaterThan(p.get('delete1')!);
  });

  it('shares a request among the kinds of its tools, any of which answers it', () => {
    const shared = new RequestClassifier([
      ...examples,
      { terms: termsOf('sync the rows both ways'), labels: ['list', 'create'] },
      { terms: termsOf('keep the rows in sync'), labels: ['list', 'create'] },
    ]);
    const p = shared.probabilities(termsOf('sync rows'));
    expect(Math.abs(p.get('list')! - p.get('create')!)).toBeLessThan(0.15);
    expect(p.get('delete1')!).toBeLessThan(p.get('list')!);
  });

  it('lifts the kinds the words say above how often each was asked, and no kind for words none said', () => {
    const paging = model.liftOf(termsOf('the comments stop after the first page, the rest are missing'));
    expect(paging('list')).toBeGreaterThan(0);
    expect(paging('create')).toBeLessThan(0);
    // Listing was asked most, so its probability leads for any request; its lift does not.
    const none = model.liftOf(termsOf('rotate the signing keys'));
    for (const kind of ['create', 'delete1', 'list']) expect(none(kind)).toBeCloseTo(0, 10);
  });

  it('learns the same model from the same past requests', () => {
    const again = new RequestClassifier(examples);
    const terms = termsOf('the comments stop after the first page');
    expect([...again.probabilities(terms)]).toEqual([...model.probabilities(terms)]);
  });

  it('says nothing without past requests, nor where they were all of one kind', () => {
    expect(new RequestClassifier([]).probabilities(termsOf('rows')).size).toBe(0);
    const one = new RequestClassifier(examples.filter((e) => e.labels[0] === 'list'));
    expect(one.probabilities(termsOf('rows')).size).toBe(0);
  });
});
