import type { ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import type { Server } from '../mcp/sdk.js';
import type { SessionTransport } from './session-transport.js';

export interface HttpSession {
  id: string;
  transport: SessionTransport;
  server: Server;
  userId: string;
  /** Whose cap the session counts against: the user, or the user and client name. */
  owner: string;
  lastSeen: number;
  /** Open POST exchanges (an open GET stream does not make a session busy). */
  open: Set<ServerResponse>;
}

export interface SessionLimits {
  maxPerOwner: number;
  max: number;
  idleMs: number;
}

/**
 * The open MCP sessions. At a cap the least recently used idle session is closed to make
 * room (clients that never close theirs, like test suites and inspectors, would otherwise
 * lock everyone out until the idle timeout); a new session is refused only when every
 * session it could replace is in the middle of a request.
 */
export class HttpSessions {
  private readonly sessions = new Map<string, HttpSession>();
  private readonly sweep: NodeJS.Timeout;
  private closed = false;
  /**
   * Told of each session closed at a cap (not of one closed idle), so that it ends beyond this
   * replica: its record in the shared store would otherwise keep it open there.
   */
  onCapEviction?: (id: string) => void;

  constructor(
    private readonly limits: SessionLimits,
    private readonly log?: Logger,
  ) {
    this.sweep = setInterval(
      () => {
        const cutoff = Date.now() - limits.idleMs;
        for (const session of this.sessions.values())
          if (session.open.size === 0 && session.lastSeen < cutoff)
            this.evict(session, 'idle session closed');
      },
      Math.min(60_000, Math.max(250, limits.idleMs / 4)),
    );
    this.sweep.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** The ids of the sessions this replica holds. */
  ids(): string[] {
    return [...this.sessions.keys()];
  }

  get(id: string): HttpSession | undefined {
    return this.sessions.get(id);
  }

  /** Keeps the session; one made while the sessions were being closed is closed at once. */
  add(session: HttpSession): void {
    if (this.closed) session.server.close().catch(() => {});
    else this.sessions.set(session.id, session);
  }

  remove(id: string): void {
    this.sessions.delete(id);
  }

  /** Makes room for one more session of `owner`; the refusal to answer when there is none. */
  admit(owner: string): { status: number; message: string } | undefined {
    if (this.closed) return { status: 503, message: 'The host is shutting down; connect again shortly' };
    const mine = [...this.sessions.values()].filter((s) => s.owner === owner);
    if (mine.length >= this.limits.maxPerOwner) {
      const victim = leastRecentIdle(mine);
      if (!victim)
        return {
          status: 429,
          message: `Too many open sessions for this user, all busy (limit ${this.limits.maxPerOwner})`,
        };
      this.evict(victim, 'session evicted (per-user cap)', true);
    }
    if (this.sessions.size >= this.limits.max) {
      const victim = leastRecentIdle([...this.sessions.values()]);
      if (!victim)
        return { status: 503, message: `Too many open sessions, all busy (limit ${this.limits.max})` };
      this.evict(victim, 'session evicted (host-wide cap)', true);
    }
    return undefined;
  }

  /** Closes every session. */
  async closeAll(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweep);
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => s.server.close().catch(() => {})));
  }

  private evict(session: HttpSession, why: string, atCap = false): void {
    this.sessions.delete(session.id);
    this.log?.info({ session: session.id, user: session.userId }, why);
    session.server.close().catch(() => {});
    if (atCap) this.onCapEviction?.(session.id);
  }
}

function leastRecentIdle(sessions: HttpSession[]): HttpSession | undefined {
  let victim: HttpSession | undefined;
  for (const s of sessions) if (s.open.size === 0 && (!victim || s.lastSeen < victim.lastSeen)) victim = s;
  return victim;
}
