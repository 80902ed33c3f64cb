import { describe, expect, it } from 'vitest';
import { behaviorHints } from './behavior-hints.js';

describe('behaviorHints', () => {
  it('derives hints from the method', () => {
    expect(behaviorHints({ method: 'GET' })).toMatchObject({
      readOnly: true,
      destructive: false,
      idempotent: true,
    });
    expect(behaviorHints({ method: 'POST' })).toMatchObject({
      readOnly: false,
      destructive: false,
      idempotent: false,
    });
    expect(behaviorHints({ method: 'PUT' })).toMatchObject({
      readOnly: false,
      destructive: true,
      idempotent: true,
    });
    expect(behaviorHints({ method: 'PATCH' })).toMatchObject({
      readOnly: false,
      destructive: true,
      idempotent: false,
    });
    expect(behaviorHints({ method: 'DELETE' })).toMatchObject({
      readOnly: false,
      destructive: true,
      idempotent: true,
    });
  });

  it('lets a POST that only reads be read-only (and so idempotent, not destructive)', () => {
    expect(behaviorHints({ method: 'POST', hints: { readOnly: true } })).toEqual({
      readOnly: true,
      destructive: false,
      idempotent: true,
      openWorld: true,
    });
  });
});
