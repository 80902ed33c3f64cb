import { type CodeRecord, Grants } from '../src/grants.js';
import { MemoryStateStore, type StateStore } from '../src/state-store.js';

// How the token endpoint drives Grants, for the tests of its codes, grants and refresh tokens.

export const record: CodeRecord = {
  clientId: 'client-1',
  redirectUri: 'http://127.0.0.1/callback',
  codeChallenge: 'c'.repeat(43),
  subject: 'alice',
  scopes: ['tools:read'],
  resource: 'https://tools.example.com/mcp',
};

export const LIFETIMES = { codeSeconds: 60, accessSeconds: 600, refreshSeconds: 3600 };

export const newGrants = (store: StateStore = new MemoryStateStore()) => new Grants(store, LIFETIMES);

/** A code exchanged as the token endpoint does for a client that may refresh: presented, its grant started. */
export async function exchanged(grants: Grants, code: string) {
  const presented = await grants.presentCode(code);
  return presented && grants.start(presented, true);
}

/** A refresh as the token endpoint makes it for the grant's client: presented, then rotated. */
export async function refreshed(grants: Grants, refreshToken: string): Promise<string | undefined> {
  const presented = await grants.presentRefresh(refreshToken, record.clientId);
  return presented && grants.rotate(presented);
}

/** A grant as the token endpoint starts one: a code issued and exchanged; its refresh token. */
export async function started(grants: Grants) {
  const answer = await exchanged(grants, await grants.issueCode(record));
  return { grant: answer!.grant, refreshToken: answer!.refreshToken! };
}

/** The keys the memory store holds under `prefix`. */
export async function keys(store: MemoryStateStore, prefix: string): Promise<string[]> {
  const entries = (store as unknown as { entries: Map<string, unknown> }).entries;
  return [...entries.keys()].filter((k) => k.startsWith(prefix));
}
