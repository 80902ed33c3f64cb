import { describe, expect, it } from 'vitest';
import type { ToolInfo } from '../host.js';
import { requestIntent } from './request-intent.js';
import { processTerm } from './search-terms.js';
import { toolShape } from './tool-shape.js';

function tool(
  method: string,
  path: string,
  description: string,
  params: Record<string, Record<string, unknown>> = {},
  readOnly = method === 'GET',
): ToolInfo {
  const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  return {
    name: 'DemoApi.Tool',
    toolSet: 'DemoApi',
    description,
    inputSchema: { type: 'object', properties: params, required: pathParams },
    annotations: {
      readOnlyHint: readOnly,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    },
    endpoint: { method, path, pathParams },
  };
}
const shape = (t: ToolInfo) => toolShape(t, new Set());
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
});

describe('requestIntent', () => {
  it('reads the operation from verbs, question forms and phrases', () => {
    expect(requestIntent('what campaigns do we have?', []).op).toBe('list');
    expect(requestIntent('is my export ready yet?', []).op).toBe('read');
    expect(requestIntent('take the trade show line out of the budget', []).op).toBe('delete');
    expect(requestIntent('rename the Leads table', []).op).toBe('update');
    expect(requestIntent('how many people came to the webinar', []).op).toBe('count');
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

  it('tells one item from several', () => {
    expect(requestIntent('delete rows 4, 5 and 6', []).several).toBe(true);
    expect(requestIntent('create 12 campaigns', []).several).toBe(true);
    expect(requestIntent('delete one row', []).several).toBe(false);
  });
});
