import { describe, expect, it } from 'vitest';
import { encodeQuery, queryPairs } from './serialize-query.js';

describe('queryPairs', () => {
  it('form repeats the key for arrays and stringifies scalars', () => {
    expect(queryPairs('id', ['a', 'b'])).toEqual([
      ['id', 'a'],
      ['id', 'b'],
    ]);
    expect(queryPairs('limit', 10)).toEqual([['limit', '10']]);
    expect(queryPairs('archived', false)).toEqual([['archived', 'false']]);
  });

  it('comma joins arrays into one value', () => {
    expect(queryPairs('properties', ['a', 'b', 'c'], 'comma')).toEqual([['properties', 'a,b,c']]);
  });

  it('brackets repeats key[] as Airtable expects', () => {
    expect(queryPairs('fields', ['Name', 'Status'], 'brackets')).toEqual([
      ['fields[]', 'Name'],
      ['fields[]', 'Status'],
    ]);
  });

  it('deepObject indexes arrays of objects', () => {
    expect(
      queryPairs(
        'sort',
        [
          { field: 'Name', direction: 'asc' },
          { field: 'Age', direction: 'desc' },
        ],
        'deepObject',
      ),
    ).toEqual([
      ['sort[0][field]', 'Name'],
      ['sort[0][direction]', 'asc'],
      ['sort[1][field]', 'Age'],
      ['sort[1][direction]', 'desc'],
    ]);
    expect(queryPairs('filter', { a: { b: 1 } }, 'deepObject')).toEqual([['filter[a][b]', '1']]);
  });

  it('prefixed turns each object entry into its own key', () => {
    expect(queryPairs('property.', { hs_url: 'x y', n: 2 }, 'prefixed')).toEqual([
      ['property.hs_url', 'x y'],
      ['property.n', '2'],
    ]);
  });

  it('json encodes the whole value into one key', () => {
    expect(queryPairs('filter', { a: [1] }, 'json')).toEqual([['filter', '{"a":[1]}']]);
  });

  it('omits undefined and null', () => {
    expect(queryPairs('x', undefined)).toEqual([]);
    expect(queryPairs('x', null)).toEqual([]);
  });
});

describe('encodeQuery', () => {
  it('percent-encodes keys and values, spaces as %20', () => {
    expect(
      encodeQuery([
        ['fields[]', 'a b'],
        ['q', 'x&y=z#'],
      ]),
    ).toBe('fields%5B%5D=a%20b&q=x%26y%3Dz%23');
  });
});
