import { describe, expect, it } from 'vitest';
import { PersonBounds } from './person-bounds.js';
import { MemoryStateStore } from './state-store.js';

const HOUR = 3_600_000;

describe("a person's completed authorizations", () => {
  it('are bounded to 60 an hour and 240 a day, each window from its first count', async () => {
    const clock = { now: 1_000_000 };
    const bounds = new PersonBounds(new MemoryStateStore(() => clock.now));
    let completed = 0;
    for (let hour = 0; hour < 5; hour++) {
      while (await bounds.countAuthorization('alice')) completed += 1;
      // Refused, and not counted: the next hour's window opens as wide.
      expect(await bounds.mayAuthorize('alice')).toBe(false);
      clock.now += HOUR;
    }
    expect(completed).toBe(240);
    expect(await bounds.mayAuthorize('alice')).toBe(false);
    // Someone else's are their own.
    expect(await bounds.mayAuthorize('bob')).toBe(true);
    clock.now += 20 * HOUR;
    expect(await bounds.mayAuthorize('alice')).toBe(true);
  });

  it('leave out one that did not complete', async () => {
    const bounds = new PersonBounds(new MemoryStateStore());
    for (let i = 0; i < 59; i++) expect(await bounds.countAuthorization('alice')).toBe(true);
    expect(await bounds.countAuthorization('alice')).toBe(true);
    await bounds.uncount('alice');
    expect(await bounds.mayAuthorize('alice')).toBe(true);
    expect(await bounds.countAuthorization('alice')).toBe(true);
    expect(await bounds.mayAuthorize('alice')).toBe(false);
  });
});
