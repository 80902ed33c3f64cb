import { ToolError } from '@toolhost/core';
import { describe, expect, it } from 'vitest';
import { plainArguments } from './plain-arguments.js';

/** The parameter and message of the error a copy refuses with. */
function refusal(raw: unknown): { parameter?: string; message: string } {
  try {
    plainArguments(raw);
  } catch (e) {
    if (ToolError.isInstance(e)) return { parameter: e.info.parameter, message: e.info.message };
    throw e;
  }
  throw new Error('not refused');
}

describe('plainArguments', () => {
  it('copies JSON data as it is, without undefined members, whatever made the object', () => {
    class Thing {
      id = 'a';
      gone = undefined;
    }
    const copy = plainArguments({ thing: new Thing(), list: [1, 'b', null, { c: true }] });
    expect(copy).toEqual({ thing: { id: 'a' }, list: [1, 'b', null, { c: true }] });
    expect(Object.keys(copy.thing as object)).toEqual(['id']);
    expect(plainArguments(undefined)).toEqual({});
    // What JSON.stringify would send for a Date or an object with a toJSON, asked once.
    let asked = 0;
    const once = {
      toJSON: () => {
        asked += 1;
        return { n: asked };
      },
    };
    expect(plainArguments({ at: new Date(0), once })).toEqual({
      at: '1970-01-01T00:00:00.000Z',
      once: { n: 1 },
    });
    expect(asked).toBe(1);
  });

  it('keeps a `__proto__` key JSON.parse made an own key as one, to be refused as a parameter no tool has', () => {
    const copy = plainArguments(JSON.parse('{"__proto__":{"id":"abc"},"obj":{"__proto__":{"name":"n"}}}'));
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'obj']);
    expect((copy as { id?: unknown }).id).toBeUndefined();
    expect(Object.keys(copy.obj as object)).toEqual(['__proto__']);
    expect((copy.obj as { name?: unknown }).name).toBeUndefined();
    // Nor do the arguments themselves stand for what a toJSON of theirs answers: it is a parameter.
    expect(refusal({ toJSON: () => null, id: 'a' }).parameter).toBe('toJSON');
  });

  it('names the path of a value JSON has no form for', () => {
    expect(refusal({ a: { b: [0, new Set([1])] } })).toEqual({
      parameter: 'a.b[1]',
      message: "Parameter 'a.b[1]' holds a Set, which is not JSON data; nothing was sent.",
    });
    expect(refusal({ n: 1n }).parameter).toBe('n');
    expect(refusal(new Map()).parameter).toBe('arguments');
    expect(refusal([1]).message).toBe('Arguments must be a JSON object of named parameters.');
  });

  it('refuses a cycle or a value nested over 100 levels as too deep, naming the parameter', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(refusal({ p: cycle }).message).toMatch(/^Parameter 'p' nests more than 100 levels deep/);
    let deep: unknown = 1;
    for (let i = 0; i < 100; i += 1) deep = [deep];
    expect(plainArguments({ p: deep }).p).toEqual(deep);
    expect(refusal({ p: [deep] }).parameter).toBe('p');
  });
});
