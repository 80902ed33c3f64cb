import { describe, expect, it } from 'vitest';
import { SchemaPlaces } from './schema-places.js';

const id = { type: 'integer', format: 'int64' };

describe('SchemaPlaces', () => {
  it('gathers every schema that judges a place: members of allOf, branches of anyOf and oneOf, $refs followed', () => {
    const bounded = { maximum: 10 };
    const schema = {
      definitions: { Id: id },
      type: 'object',
      allOf: [{ properties: { a: { $ref: '#/definitions/Id' } } }],
      anyOf: [{ properties: { a: bounded } }, { required: ['a'] }],
      properties: { a: { oneOf: [{ type: 'null' }, { type: 'integer' }] } },
    };
    const value = { a: '5' };
    const { schemas, listedAbove, branched } = new SchemaPlaces(schema, value).at(['a']);
    expect(schemas).toHaveLength(6);
    expect(schemas).toEqual(expect.arrayContaining([id, bounded, { type: 'null' }, { type: 'integer' }]));
    expect(listedAbove).toBe(false);
    // Some of them bind it only on a condition (a branch of the anyOf above, of the oneOf there).
    expect(branched).toBe(true);
  });

  it('says a place is branched where a schema on its way applies others on a condition, and not otherwise', () => {
    const plain = { type: 'object', allOf: [{ properties: { a: { multipleOf: 0.1 } } }] };
    expect(new SchemaPlaces(plain, { a: '1' }).at(['a']).branched).toBe(false);
    for (const condition of [
      { if: { required: ['b'] }, else: { properties: { a: { minimum: 1 } } } },
      { properties: { a: { not: { maximum: 0 } } } },
      { dependentSchemas: { b: { properties: { a: { multipleOf: 0.1 } } } } },
      { properties: { a: { oneOf: [{ multipleOf: 0.1 }, { maximum: 1 }] } } },
    ])
      expect(
        new SchemaPlaces({ ...plain, ...condition }, { a: '1' }).at(['a']).branched,
        JSON.stringify(condition),
      ).toBe(true);
  });

  it('follows items by position, pattern and additional members, and says when a value list holds the place', () => {
    const schema = {
      type: 'array',
      enum: [[1, 2]],
      items: [{ type: 'string' }],
      additionalItems: {
        type: 'object',
        properties: { id },
        patternProperties: { '^x-': { type: 'number' } },
        additionalProperties: { type: 'boolean' },
      },
    };
    const value = ['a', { id: '1', 'x-n': '2', other: true }];
    const places = new SchemaPlaces(schema, value);
    expect(places.at(['0']).schemas).toEqual([{ type: 'string' }]);
    expect(places.at(['1', 'id'])).toEqual({ schemas: [id], listedAbove: true, branched: false });
    expect(places.at(['1', 'x-n']).schemas).toEqual([{ type: 'number' }]);
    expect(places.at(['1', 'other']).schemas).toEqual([{ type: 'boolean' }]);
  });

  it('has no answer where a schema cannot be followed', () => {
    const value = { a: '1' };
    for (const a of [
      { $ref: 'https://example.test/id.json' },
      { $ref: '#anchor' },
      { $dynamicRef: '#meta' },
    ]) {
      expect(new SchemaPlaces({ properties: { a } }, value).at(['a']).schemas).toBeUndefined();
    }
    expect(new SchemaPlaces({ patternProperties: { '(': {} } }, value).at(['a']).schemas).toBeUndefined();
    // A schema that refers to itself is gathered once.
    const tree = { type: 'object', properties: { child: { $ref: '#' }, n: id } };
    expect(
      new SchemaPlaces(tree, { child: { child: { n: '1' } } }).at(['child', 'child', 'n']).schemas,
    ).toEqual([id]);
  });
});
