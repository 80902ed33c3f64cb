import { createHash } from 'node:crypto';

/**
 * A user id as telemetry may carry it: the first 16 hex digits of its SHA-256. Traces leave
 * the host for a vendor's backend; the id itself (often an e-mail address) must not, yet one
 * user's calls should still be found together.
 */
export function hashUserId(userId: string): string {
  return createHash('sha256').update(userId).digest('hex').slice(0, 16);
}
