import type { StoredToken } from '@toolhost/core';

/**
 * The marks of refreshes this process stored and sent nothing under (the store reported the
 * mark's write failed though it may have landed, or the token endpoint refused the request or
 * was never reached) whose taking back may have failed: one per user, the newest. Found again,
 * such a mark is no refresh sent without an answer, and the refresh token is good to send; any
 * other mark still stops it. Matched by the mark's own id, never its time: another replica's
 * mark of the same millisecond is another refresh. Bounded: one forgotten is only taken, as
 * before, for a refresh that went unanswered.
 */
export class UnsentMarks {
  private readonly ids = new Map<string, string>();

  constructor(private readonly max = 4096) {}

  remember(userId: string, mark: StoredToken): void {
    if (mark.refreshMark === undefined) return;
    this.ids.delete(userId);
    this.ids.set(userId, mark.refreshMark);
    if (this.ids.size > this.max) this.ids.delete(this.ids.keys().next().value as string);
  }

  /** Whether `token` carries this process's newest unsent mark for the user. */
  ours(userId: string, token: StoredToken): boolean {
    return token.refreshMark !== undefined && this.ids.get(userId) === token.refreshMark;
  }
}
