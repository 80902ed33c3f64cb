import { buildInputSchema, type ToolDeclaration, ToolError } from '@toolhost/core';
import { describe, expect, it } from 'vitest';
import { buildRequest } from './build-request.js';

const base: Omit<ToolDeclaration, 'params'> = {
  name: 'Enroll',
  description: '',
  method: 'POST',
  path: '/seq/{id}/enroll',
  auth: { kind: 'none' },
  body: { kind: 'fields' },
};

const decl: ToolDeclaration = {
  ...base,
  params: [
    {
      name: 'sequence',
      in: 'path',
      apiName: 'id',
      required: true,
      schema: { type: 'string' },
      description: '',
    },
    {
      name: 'account_user',
      in: 'query',
      apiName: 'userId',
      fromSetting: 'userId',
      required: true,
      schema: { type: 'string' },
      description: '',
    },
    {
      name: 'contact',
      in: 'body',
      bodyPath: 'contactId',
      required: true,
      schema: { type: 'string' },
      description: '',
    },
    { name: 'alias', in: 'body', bodyPath: 'sender.alias', schema: { type: 'string' }, description: '' },
    {
      name: 'limit',
      in: 'query',
      sendDefault: true,
      schema: { type: 'integer', default: 50 },
      description: '',
    },
    { name: 'end', in: 'query', dynamicDefault: 'today', schema: { type: 'string' }, description: '' },
    {
      name: 'strict',
      in: 'header',
      apiName: 'X-Strict',
      apiValues: { True: '1' },
      schema: { type: 'string' },
      description: '',
    },
  ],
};

const target = { toolSet: 'T', baseUrl: 'https://api.test' };

describe('buildRequest', () => {
  it('places each parameter under its API name, with defaults and settings', () => {
    const req = buildRequest(
      decl,
      { toolSet: 'T', baseUrl: 'https://api.test/v4/', settings: { userId: 'u-9' } },
      { sequence: 's 1', contact: 'c1', alias: 'a@b.c', strict: 'True' },
    );
    const url = new URL(req.url);
    expect(url.origin + url.pathname).toBe('https://api.test/v4/seq/s%201/enroll');
    expect([...url.searchParams]).toEqual([
      ['userId', 'u-9'],
      ['limit', '50'],
      ['end', new Date().toISOString().slice(0, 10)],
    ]);
    expect(req.headers['x-strict']).toBe('1');
    expect(JSON.parse(req.body!)).toEqual({ contactId: 'c1', sender: { alias: 'a@b.c' } });
    expect(req.headers['content-type']).toBe('application/json');
  });

  it('leaves out a mapped value the API does not know, the names objects inherit among them', () => {
    // `constructor` read Object from the map's prototype: `X-Strict: function Object() { [native code] }`.
    for (const strict of ['maybe', 'constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const req = buildRequest(
        decl,
        { toolSet: 'T', baseUrl: 'https://api.test', settings: { userId: 'u' } },
        { sequence: 's', contact: 'c', strict },
      );
      expect(req.headers, strict).not.toHaveProperty('x-strict');
    }
  });

  it('reports a missing required setting as a configuration error naming the key', () => {
    let error: unknown;
    try {
      buildRequest(decl, target, { sequence: 's', contact: 'c' });
    } catch (e) {
      error = e;
    }
    expect(ToolError.isInstance(error) && error.info).toMatchObject({
      code: 'configuration_error',
      message: expect.stringContaining('toolSets.T.settings.userId'),
    });
  });

  it('keeps setting-filled parameters out of the input schema', () => {
    expect(Object.keys(buildInputSchema(decl).properties ?? {})).not.toContain('account_user');
  });

  it('sends an empty JSON object for a fields body with nothing set', () => {
    const bare: ToolDeclaration = { ...base, path: '/x', params: [] };
    expect(buildRequest(bare, target, {}).body).toBe('{}');
  });

  it('lets an object parameter declared as the whole body supply its fields', () => {
    const whole: ToolDeclaration = {
      ...base,
      path: '/x',
      params: [
        { name: 'extra', in: 'body', wholeBody: true, schema: { type: 'object' }, description: '' },
        { name: 'name', in: 'body', schema: { type: 'string' }, description: '' },
      ],
    };
    const req = buildRequest(whole, target, { extra: { a: 1, b: [2] }, name: 'n' });
    expect(JSON.parse(req.body!)).toEqual({ a: 1, b: [2], name: 'n' });
    expect(buildRequest(whole, target, {}).body).toBe('{}');
    // A key `__proto__` (JSON.parse makes it an own key) is a key like any other: assigned, it
    // set the body's prototype and was silently left out of what was sent.
    const extra = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    expect(buildRequest(whole, target, { extra, name: 'n' }).body).toBe(
      '{"__proto__":{"polluted":true},"a":1,"name":"n"}',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('sends an empty list as an empty value only where the API reads it as none', () => {
    const list: ToolDeclaration = {
      ...base,
      method: 'GET',
      path: '/x',
      body: undefined,
      params: [
        {
          name: 'props',
          in: 'query',
          apiName: 'properties',
          sendEmptyArray: true,
          schema: { type: 'array' },
          description: '',
        },
        { name: 'ids', in: 'query', apiName: 'id', schema: { type: 'array' }, description: '' },
      ],
    };
    expect(buildRequest(list, target, { props: [], ids: [] }).url).toBe('https://api.test/x?properties=');
    expect(buildRequest(list, target, { props: ['a', 'b'] }).url).toBe(
      'https://api.test/x?properties=a&properties=b',
    );
  });
});

describe('numbers in the query', () => {
  const list: ToolDeclaration = {
    name: 'List',
    description: 'List.',
    method: 'GET',
    path: '/rows',
    auth: { kind: 'none' },
    params: [
      { name: 'limit', in: 'query', schema: { type: 'integer' }, description: '' },
      { name: 'ids', in: 'query', schema: { type: 'array', items: { type: 'integer' } }, description: '' },
    ],
  };

  it('are refused when they cannot be written exactly, naming the parameter', () => {
    for (const args of [{ limit: 1e21 }, { ids: [1, 2 ** 53 + 2] }]) {
      let error: unknown;
      try {
        buildRequest(list, target, args);
      } catch (e) {
        error = e;
      }
      expect(ToolError.isInstance(error) && error.info).toMatchObject({
        code: 'invalid_argument',
        parameter: Object.keys(args)[0],
        message: expect.stringContaining('cannot be sent exactly'),
      });
    }
    expect(buildRequest(list, target, { limit: 9007199254740991 }).url).toBe(
      'https://api.test/rows?limit=9007199254740991',
    );
  });
});

describe('buildRequest with text that is not well-formed Unicode', () => {
  const settings = { userId: 'u-9' };
  it.each([
    ['a path value', { sequence: 'a\ud800', contact: 'c1' }, 'sequence'],
    ['a query value', { sequence: 's1', contact: 'c1', end: '\udfff2026' }, 'end'],
    ['a header value', { sequence: 's1', contact: 'c1', trace: 'x\ud83d' }, 'trace'],
    // The key of an object sent as query pairs (`property.<key>=…`): encodeURIComponent threw, an internal_error.
    ['a query object key', { sequence: 's1', contact: 'c1', property: { 'a\ud800b': 'v' } }, 'property'],
  ])('refuses a lone surrogate in %s as invalid_argument naming the parameter', (_what, args, param) => {
    const traced: ToolDeclaration = {
      ...decl,
      params: [
        ...(decl.params ?? []),
        { name: 'trace', in: 'header', apiName: 'X-Trace', schema: { type: 'string' }, description: '' },
        {
          name: 'property',
          in: 'query',
          style: 'prefixed',
          keyPrefix: 'property.',
          schema: { type: 'object' },
          description: '',
        },
      ],
    };
    const attempt = () => buildRequest(traced, { ...target, settings }, args);
    expect(attempt).toThrow(ToolError);
    expect(attempt).toThrow(`Parameter '${param}' holds a lone surrogate`);
  });
});
