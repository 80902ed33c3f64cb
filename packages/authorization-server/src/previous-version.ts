import type { StateStore } from './state-store.js';

/**
 * Keeps a refresh token readable by the version before this one, which finds a token's grant
 * by a record of its own (`refresh:<hash>`, `{ grantId }`) and knows nothing of one without:
 * while replicas of both versions share a store (a rolling deploy, a rollback), a user whose
 * refresh reaches the older replica stays signed in. The spent token's record goes, so that
 * the older version, presented it again, finds it among its grant's spent ones and revokes
 * the grant, where it would take the record and only refuse. Written after the spend, best
 * effort and not durably: the token is spent and answered whatever becomes of this; lost, only
 * an older replica refuses the token. A version that no longer runs beside that one drops it.
 */
export async function keepForPreviousVersion(
  store: StateStore,
  grantId: string,
  issuedHash: string,
  spentHash: string | undefined,
  ttlSeconds: number,
): Promise<void> {
  try {
    await store.set(`refresh:${issuedHash}`, JSON.stringify({ grantId }), ttlSeconds);
    if (spentHash !== undefined) await store.delete(`refresh:${spentHash}`);
  } catch {
    // Best effort, as above.
  }
}
