import { describe, expect, it } from 'vitest';
import { credentialForms, redact } from './redact.js';

describe('redact', () => {
  const forms = credentialForms(['tok/en+1=', '']);

  it('replaces every form of a credential, in keys and values, at any depth', () => {
    const body = {
      auth: 'Bearer tok/en+1=',
      'x-tok/en+1=': [{ url: `https://a.example/?t=${encodeURIComponent('tok/en+1=')}` }],
      escaped: 'Bearer tok\\/en+1=',
    };
    expect(redact(body, forms)).toEqual({
      auth: 'Bearer [redacted]',
      'x-[redacted]': [{ url: 'https://a.example/?t=[redacted]' }],
      escaped: 'Bearer [redacted]',
    });
  });

  it("keeps an answer's own __proto__ key in its copy, as a key", () => {
    const body = JSON.parse('{"__proto__":{"kept":1},"echo":"tok/en+1="}') as object;
    expect(JSON.stringify(redact(body, forms))).toBe('{"__proto__":{"kept":1},"echo":"[redacted]"}');
  });

  it('returns a clean body itself, uncopied', () => {
    const body = { a: [1, 'two', { three: null }] };
    expect(redact(body, forms)).toBe(body);
  });

  it('skips values shorter than 8 characters, which would garble ordinary words', () => {
    expect(credentialForms(['', 'k', '1234567'])).toEqual([]);
    expect(redact({ ok: true, status: 'okay' }, credentialForms(['k']))).toEqual({
      ok: true,
      status: 'okay',
    });
    expect(credentialForms(['12345678'])).toEqual(['12345678']);
  });
});
