import type { ToolDeclaration, ToolSetDefinition } from '@toolhost/core';
import { describe, expect, it } from 'vitest';
import { checkToolSet, describeDeclarationProblems } from './check-declarations.js';

const good: ToolDeclaration = {
  name: 'GetRow',
  description: 'Get one row.',
  method: 'GET',
  path: '/tables/{tableId}/rows/{rowId}',
  auth: { kind: 'none' },
  params: [
    {
      name: 'table',
      in: 'path',
      apiName: 'tableId',
      required: true,
      schema: { type: 'string' },
      description: '',
    },
    { name: 'rowId', in: 'path', required: true, schema: { type: 'string' }, description: '' },
  ],
};

function set(tools: unknown[]): ToolSetDefinition {
  return {
    contractVersion: '2.0',
    toolSet: 'RowsApi',
    plugin: { name: 'rows-plugin', version: '1.0.0' },
    servers: { default: 'https://rows.test' },
    tools: tools as ToolDeclaration[],
  };
}

describe('checkToolSet', () => {
  it('accepts a well-formed tool set', () => {
    expect(checkToolSet(set([good]))).toEqual([]);
  });

  it('names a field the vocabulary does not know, by tool and parameter', () => {
    const legacy = {
      ...good,
      params: [{ ...good.params![0], apiName: undefined, as: 'tableId' }, good.params![1]],
    };
    const problems = checkToolSet(set([JSON.parse(JSON.stringify(legacy))]));
    expect(describeDeclarationProblems('RowsApi', problems)).toEqual([
      "RowsApi.GetRow params.table.as: 'as' is not part of the declaration vocabulary of this host's contract",
    ]);
  });

  it('names a value outside the vocabulary', () => {
    const problems = checkToolSet(set([{ ...good, method: 'FETCH' }]));
    expect(problems).toEqual([
      { tool: 'GetRow', field: 'method', message: 'must be equal to one of the allowed values' },
    ]);
  });

  it('finds placeholders no parameter fills, and fields used where they mean nothing', () => {
    const problems = checkToolSet(
      set([
        {
          ...good,
          params: [
            good.params![1],
            { name: 'q', in: 'query', bodyPath: 'x', schema: { type: 'string' }, description: '' },
            {
              name: 'flag',
              in: 'query',
              executeOnly: 'optional',
              schema: { type: 'string' },
              description: '',
            },
          ],
        },
      ]),
    );
    expect(describeDeclarationProblems('RowsApi', problems)).toEqual([
      'RowsApi.GetRow path: no parameter fills {tableId}',
      'RowsApi.GetRow params.q.bodyPath: only body parameters have it, not query ones',
      'RowsApi.GetRow params.flag.executeOnly: only mode tools have execute-only parameters',
    ]);
  });

  it('refuses a duplicate tool and an unknown server', () => {
    const problems = checkToolSet(set([good, { ...good, server: 'uploads' }]));
    expect(problems.map((p) => `${p.tool} ${p.field}`)).toEqual(['GetRow name', 'GetRow server']);
  });
});
