import { describe, expect, it } from 'vitest';
import { verbAgreement } from './relevance.js';
import { requestIntent } from './request-intent.js';
import type { SearchableTool } from './searchable-tool.js';
import { toolShape } from './tool-shape.js';

const records = (method: string, name: string, description: string): SearchableTool => ({
  name: `DemoApi.${name}`,
  toolSet: 'DemoApi',
  description,
  inputSchema: { type: 'object', properties: {}, required: ['baseId'] },
  hints: { readOnly: method === 'GET' },
  endpoint: { method, path: '/v0/{baseId}/records', pathParams: ['baseId'] },
});
const list = toolShape(records('GET', 'ListRecords', 'List the records of a table.'), new Set());
const create = toolShape(records('POST', 'CreateRecords', 'Create records in a table.'), new Set());
const agreement = (request: string) => ({
  list: verbAgreement(list, requestIntent(request, [])),
  create: verbAgreement(create, requestIntent(request, [])),
});

describe('verbAgreement', () => {
  it('counts the past requests less for a tool whose operation the verb said rules out', () => {
    const { list: l, create: c } = agreement('Unable to create rows: the row is not added');
    expect(c).toBe(1);
    expect(l).toBeLessThan(1);
    expect(l).toBeGreaterThan(0);
  });

  it('counts them in full where the request says no operation, or asks a question', () => {
    expect(agreement('records with linked fields')).toEqual({ list: 1, create: 1 });
    expect(agreement('who created the records?')).toEqual({ list: 1, create: 1 });
  });
});
