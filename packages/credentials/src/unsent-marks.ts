import type { StoredToken } from '@toolhost/core';

/** How many of one user's unsent marks are kept: one per refresh tried while the store fails. */
const PER_USER = 8;

/**
 * The marks of refreshes this process stored and sent nothing under (the store reported the
 * mark's write failed though it may have landed, or the token endpoint refused the request or
 * was never reached) whose taking back may have failed. Found again, such a mark is no refresh
 * sent without an answer, and the refresh token is good to send; any other mark still stops it.
 * Each of a user's newest few is kept, not the newest alone: a mark written over one of them
 * may fail without landing, leaving the older one stored. Matched by the mark's own id and time,
 * never its time alone: another replica's mark of the same millisecond is another refresh.
 * Bounded: a mark forgotten is only taken, as before, for a refresh that went unanswered.
 */
export class UnsentMarks {
  private readonly marks = new Map<string, string[]>();

  constructor(private readonly maxUsers = 4096) {}

  remember(userId: string, mark: StoredToken): void {
    const key = keyOf(mark);
    if (key === undefined) return;
    const kept = [...(this.marks.get(userId) ?? []), key].slice(-PER_USER);
    this.marks.delete(userId);
    this.marks.set(userId, kept);
    if (this.marks.size > this.maxUsers) this.marks.delete(this.marks.keys().next().value as string);
  }

  /** Whether `token` carries one of this process's unsent marks for the user. */
  ours(userId: string, token: StoredToken): boolean {
    const key = keyOf(token);
    return key !== undefined && (this.marks.get(userId)?.includes(key) ?? false);
  }
}

function keyOf(token: StoredToken): string | undefined {
  return token.refreshMark === undefined ? undefined : `${token.refreshSentAt}\u0000${token.refreshMark}`;
}
