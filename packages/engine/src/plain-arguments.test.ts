import { ToolError } from '@toolhost/core';
import { describe, expect, it } from 'vitest';
import { plainArguments } from './plain-arguments.js';
import { type Received, startLoopbackEngine } from './test-support/loopback-engine.js';

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

describe('a copy handed back (write safety copies a write call, then hands it to the engine)', () => {
  it('is taken as it is, frozen at every level so that it stays what was copied', () => {
    const copy = plainArguments({ a: { b: [1, { c: 'd' }] } }) as { a: { b: [number, object] } };
    expect(plainArguments(copy)).toBe(copy);
    for (const part of [copy, copy.a, copy.a.b, copy.a.b[1]]) expect(Object.isFrozen(part)).toBe(true);
    expect(() => Object.defineProperty(copy, 'x', { get: () => 1 })).toThrow(TypeError);
    expect(() => {
      (copy.a as { b: unknown }).b = 2;
    }).toThrow(TypeError);
    expect(plainArguments(undefined)).toBe(plainArguments(null));
  });

  it('but anything else is copied, read once, a frozen object too', () => {
    let reads = 0;
    const frozen = Object.freeze({
      get id(): string {
        reads += 1;
        return `id-${reads}`;
      },
    });
    const copy = plainArguments(frozen);
    expect(reads).toBe(1);
    expect(copy).toEqual({ id: 'id-1' });
    expect(copy === frozen).toBe(false);
    const plain = { a: { b: 1 } };
    expect(plainArguments(plain).a).not.toBe(plain.a);
    // A member of a copy handed as the arguments is copied: only a copy of arguments is one.
    const member = plainArguments({ inner: { a: 1 } }).inner;
    expect(plainArguments(member)).not.toBe(member);
  });

  it("is what the engine sends, not copied again; an embedder's object is copied and left unchanged", async () => {
    const received: Received[] = [];
    const loop = await startLoopbackEngine(
      'T',
      [
        {
          name: 'Put',
          description: 'Put a thing.',
          method: 'PUT',
          path: '/things',
          auth: { kind: 'none' },
          body: { kind: 'fields' },
          params: [
            { name: 'whole', in: 'body', wholeBody: true, schema: { type: 'object' }, description: '' },
            { name: 'note', in: 'body', bodyPath: 'meta.note', schema: { type: 'string' }, description: '' },
          ],
        },
      ],
      received,
      () => '{}',
    );
    const engine = loop.engine;
    try {
      const given = () => ({ whole: { meta: { a: 1 }, tags: ['x'] }, note: 'n' });
      const copy = plainArguments(given());
      const raw = given();
      for (const args of [copy, raw]) {
        const prepared = engine.prepare('T.Put', args);
        if (prepared.kind !== 'request') throw new Error(JSON.stringify(prepared.outcome));
        // The copy's own objects, where the embedder's were copied.
        expect(prepared.request.args.whole === args.whole).toBe(args === copy);
        expect(prepared.request.args.whole).toEqual(given().whole);
        expect((await engine.dispatch(prepared.request, { userId: 'u' })).outcome).toMatchObject({
          ok: true,
        });
      }
      // The note goes into the body's own meta: neither the copy's (frozen) nor the embedder's changes.
      expect(received.map((r) => r.body)).toEqual(Array(2).fill('{"meta":{"a":1,"note":"n"},"tags":["x"]}'));
      expect([copy, raw]).toEqual([given(), given()]);
    } finally {
      await loop.close();
    }
  });
});
