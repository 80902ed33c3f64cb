import { describe, expect, it } from 'vitest';
import { askPerson, NobodyToAsk } from './ask-person.js';

const write = {
  tool: 'EchoApi.CreateItem',
  request: { method: 'POST', url: 'https://api.example/x', headers: {} },
};

describe('askPerson', () => {
  it("tells nobody to ask, from this copy of the package or another's, from a no", async () => {
    const signal = new AbortController().signal;
    const here = new NobodyToAsk('off a terminal');
    expect(await askPerson(() => Promise.reject(here), write, signal)).toBe(here);
    // An embedder bundling its own copy: not this class, the same mark.
    const theirs = Object.assign(new Error('their copy'), {
      [Symbol.for('toolhost.write-safety.nobodyToAsk')]: true,
    });
    expect(await askPerson(() => Promise.reject(theirs), write, signal)).toBe(theirs);
    expect(await askPerson(() => Promise.reject(new Error('broken')), write, signal)).toBe(false);
    expect(await askPerson(() => Promise.resolve(false), write, signal)).toBe(false);
    expect(await askPerson(() => Promise.resolve(true), write, signal)).toBe(true);
  });
});
