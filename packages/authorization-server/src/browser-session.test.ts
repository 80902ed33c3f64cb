import type { ServerResponse } from 'node:http';
import { expect, it } from 'vitest';
import { BrowserSessions } from './browser-session.js';
import { MemoryStateStore } from './state-store.js';

it('keeps the binding of a sign-in by access token at least as long as the sign-in it guards', async () => {
  // Both written for 8 hours, the binding first, it expired first: for a moment the session read
  // as a sign-in bound to nothing, good again though its token had been replaced.
  let now = 1_000_000;
  const store = new MemoryStateStore(() => now++);
  const holds = (person: { binding?: string }) =>
    person.binding === undefined || person.binding === 'current';
  const sessions = new BrowserSessions(store, () => false, holds);
  const res = { setHeader() {}, getHeader: () => undefined } as unknown as ServerResponse;
  const browser = await sessions.signIn(res, { subject: 'alice', binding: 'replaced' });
  expect(await sessions.signedIn(browser)).toBeUndefined();
  for (const later of [8 * 3600 * 1000 - 5, 8 * 3600 * 1000 + 1, 8 * 3600 * 1000 + 30_000]) {
    now = 1_000_000 + later;
    expect(await sessions.signedIn(browser)).toBeUndefined();
  }
});
