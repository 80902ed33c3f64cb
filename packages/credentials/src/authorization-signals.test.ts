import { describe, expect, it } from 'vitest';
import { LocalWaiters } from './authorization-signals.js';
import { MAX_PENDING_PER_USER } from './pending-authorizations.js';

/** Adds a waiter for each flow id, answering which of them were told when fired. */
function told(waiters: LocalWaiters, flows: Array<[flowId: string, owner: string]>) {
  const heard = new Set<string>();
  for (const [flowId, owner] of flows) waiters.add(flowId, () => heard.add(flowId), owner);
  return () => {
    for (const [flowId] of flows) waiters.fire(flowId);
    return heard;
  };
}

describe('LocalWaiters', () => {
  it("keeps another user's waiter however many sign-ins one user leaves waiting", () => {
    const waiters = new LocalWaiters();
    const alice: Array<[string, string]> = [['alice-flow', 'crm alice']];
    const mallory = Array.from({ length: 10_000 }, (_, i): [string, string] => [`m${i}`, 'crm mallory']);
    const fire = told(waiters, [...alice, ...mallory]);
    const heard = fire();
    expect(heard.has('alice-flow')).toBe(true);
    // Mallory's newest flows are told, as many as a user may have pending; the older ones went
    // with their flows (the pending store drops a user's oldest for their newest alike).
    expect([...heard].filter((id) => id.startsWith('m'))).toEqual(
      mallory.slice(-MAX_PENDING_PER_USER).map(([id]) => id),
    );
  });

  it('keeps its bound in all, and a waiter added again counts once', () => {
    const waiters = new LocalWaiters(60_000, 100, 2);
    const flows = Array.from({ length: 300 }, (_, i): [string, string] => [`f${i}`, `user ${i}`]);
    const again: Array<[string, string]> = [
      ['g', 'bob'],
      ['g', 'bob'],
      ['h', 'bob'],
    ];
    const heard = told(waiters, [...flows, ...again])();
    expect(heard.size).toBe(100);
    expect([...heard]).toEqual(expect.arrayContaining(['g', 'h', 'f299']));
  });
});
