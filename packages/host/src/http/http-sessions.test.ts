import { describe, expect, it } from 'vitest';
import { type HttpSession, HttpSessions } from './http-sessions.js';

/** A session whose server's closing is counted. */
function session(id: string, owner = 'alice'): HttpSession & { closes: number } {
  const s = {
    id,
    owner,
    userId: owner,
    lastSeen: Date.now(),
    open: new Set(),
    closes: 0,
    transport: {},
    server: {
      close: async () => {
        s.closes += 1;
      },
    },
  };
  return s as unknown as HttpSession & { closes: number };
}

describe('HttpSessions', () => {
  it('makes no session once they are being closed: an initialize that raced the shutdown keeps nothing', async () => {
    const sessions = new HttpSessions({ maxPerOwner: 2, max: 10, idleMs: 60_000 });
    const before = session('a');
    sessions.add(before);
    // Admitted before the shutdown; its record was being saved when every session was closed.
    expect(sessions.admit('alice')).toBeUndefined();
    await sessions.closeAll();
    expect(before.closes).toBe(1);
    const late = session('b');
    sessions.add(late);
    expect(sessions.size).toBe(0);
    expect(late.closes).toBe(1);
    expect(sessions.admit('alice')).toEqual({
      status: 503,
      message: 'The host is shutting down; connect again shortly',
    });
  });
});
