import { describe, expect, it } from 'vitest';
import { PendingAuthorizations } from './pending-authorizations.js';

const entry = (userId: string, flowId: string) => ({
  userId,
  flowId,
  codeVerifier: 'v',
  scopes: [],
  authorizeUrl: 'https://as.example/authorize',
});

describe('PendingAuthorizations', () => {
  it('caps flows per user, so one user cannot push out everyone else’s', () => {
    const pending = new PendingAuthorizations();
    pending.add('bob-state', entry('bob', 'bob-flow'));
    for (let i = 0; i < 10_000; i += 1) pending.add(`alice-${i}`, entry('alice', `alice-flow-${i}`));
    expect(pending.get('bob-state')?.userId).toBe('bob');
    expect(pending.byFlow('bob-flow')?.state).toBe('bob-state');
    // Alice's own oldest flows made room for her newest.
    expect(pending.get('alice-0')).toBeUndefined();
    expect(pending.byFlow('alice-flow-0')).toBeUndefined();
    expect(pending.get('alice-9999')?.userId).toBe('alice');
  });

  it('expires flows, and gives each state one callback', () => {
    let now = 0;
    const pending = new PendingAuthorizations(1000, 10_000, () => now);
    pending.add('s1', entry('u', 'f1'));
    pending.add('s2', entry('u', 'f2'));
    expect(pending.take('s1')?.flowId).toBe('f1');
    expect(pending.take('s1')).toBeUndefined();
    now = 1000;
    expect(pending.get('s2')).toBeUndefined();
  });
});
