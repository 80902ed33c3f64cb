import type { SaltAgreement } from './shared-cipher.js';
import type { SharedStore } from './shared-store.js';

/** What `toolhost doctor` says of the shared salt and the tokens it seals, and whether all is well. */
export interface SaltReport {
  lines: string[];
  ok: boolean;
}

const SALT_LINES: Record<SaltAgreement, string> = {
  agreed: 'Shared token salt: in Redis, the same as this host uses.',
  'written-back':
    'Shared token salt: WAS MISSING from Redis (emptied, flushed or evicted); written back. Give Redis persistence and maxmemory-policy noeviction.',
  adopted:
    'Shared token salt: CHANGED in Redis since this host started (Redis lost its data); adopted. Values sealed before still open.',
};

/**
 * Whether this replica agrees with Redis on the salt tokens are sealed with (the check writes a
 * missing salt back and adopts a changed one, as any read does), and whether every token in
 * Redis opens with this replica's key. Never throws: a store it cannot check is a finding.
 */
export async function saltReport(store: Pick<SharedStore, 'cipher' | 'tokenStore'>): Promise<SaltReport> {
  try {
    const agreement = await store.cipher.agree();
    const audit = await store.tokenStore.audit();
    const tokens =
      audit.unreadable > 0
        ? `Tokens in Redis: ${audit.unreadable} of ${audit.tokens} do NOT open with this TOOLHOST_TOKEN_KEY (sealed with another key, or altered).`
        : `Tokens in Redis: ${audit.tokens}, all open with this TOOLHOST_TOKEN_KEY (sealed under ${audit.salts} salt${audit.salts === 1 ? '' : 's'}).`;
    return { lines: [SALT_LINES[agreement], tokens], ok: agreement === 'agreed' && audit.unreadable === 0 };
  } catch (e) {
    return {
      lines: [`Shared token salt: cannot check: ${e instanceof Error ? e.message : String(e)}`],
      ok: false,
    };
  }
}
