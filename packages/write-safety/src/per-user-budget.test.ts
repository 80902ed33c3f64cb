import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProcessPlaces } from './per-user-budget.js';

/** How many users' slots the places keep (what grows with the users seen). */
const slots = (places: ProcessPlaces) => (places as unknown as { users: Map<string, unknown> }).users.size;

afterEach(() => {
  vi.useRealTimers();
});

describe('ProcessPlaces', () => {
  it('bounds each user, and keeps no slot for a user whose places were all given back', async () => {
    const places = new ProcessPlaces();
    expect(await places.take('preview', 'alice', 'p1', 2, 60_000)).toBe(true);
    expect(await places.take('preview', 'alice', 'p2', 2, 60_000)).toBe(true);
    expect(await places.take('preview', 'alice', 'p3', 2, 60_000)).toBe(false);
    expect(await places.take('preview', 'alice', 'p2', 2, 60_000)).toBe(true);
    await places.giveBack('preview', 'alice', 'p1');
    await places.giveBack('preview', 'alice', 'p2');
    await places.giveBack('preview', 'bob', 'never-taken');
    expect(slots(places)).toBe(0);
  });

  it('forgets, past 10,000 users, those whose places have all expired', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const places = new ProcessPlaces();
    for (let i = 0; i < 10_000; i += 1) await places.take('key', `user-${i}`, 'k', 5, 1_000);
    expect(slots(places)).toBe(10_000);
    vi.setSystemTime(1_000_000 + 2_000);
    await places.take('key', 'newcomer', 'k', 5, 1_000);
    expect(slots(places)).toBe(1);
  });
});
