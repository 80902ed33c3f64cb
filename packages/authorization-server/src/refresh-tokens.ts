import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { hashOf, newSecret } from './secrets.js';

/**
 * A refresh token: `<grant id>.<generation>.<tag>.<secret>`. It names its grant, found without
 * a record of its own, and its generation, the number of rotations of that grant before it; the
 * tag, keyed by a key in the grant's record, is the proof that the grant issued that
 * generation. The hash of the whole token is what the grant holds while it is current.
 *
 * Why the generation: a grant keeps the hashes of only its last few spent tokens, so a thief who
 * rotated a stolen token a few times more, before its client presented it again, would have the
 * client's presentation refused as unknown rather than found spent, and keep the grant. Every
 * generation before the grant's current one was spent, so a token of one, tag checking out, is
 * reuse however long ago it was spent, and the record stays one key and one number.
 *
 * A name alone proves nothing: a grant's id is in each of its access tokens, and a public client
 * is known by its id alone. A generation's tag is known to whoever held a token of it, whose
 * presenting it is reuse anyway, and to the store, whose reader could revoke the grant anyway;
 * the key mints no token that works, as the secret is kept only as the hash of the whole.
 */
export interface Generations {
  /** The generation of the grant's current refresh token. */
  generation?: number;
  /** The key of its refresh tokens' tags (base64url). */
  generationKey?: string;
}

/** The grant a refresh token names (those issued before tokens named their grant name none). */
export function grantNamedBy(refreshToken: string): string | undefined {
  const id = refreshToken.split('.')[0]!;
  return refreshToken.includes('.') && /^[0-9a-f-]{36}$/.test(id) ? id : undefined;
}

function tagOf(grantId: string, generation: number, key: string): string {
  const mac = createHmac('sha256', Buffer.from(key, 'base64url')).update(`${grantId}.${generation}`);
  return mac.digest('base64url').slice(0, 22);
}

/**
 * A new refresh token of a grant, of the generation after its current one (the first for a new
 * grant, or one from before generations, under a new key), and what its record then holds.
 */
export function issueRefreshToken(grant: Generations & { id: string }): {
  refreshToken: string;
  record: Required<Generations> & { refreshHash: string };
} {
  const { generation: current, generationKey } = grant;
  const known = current !== undefined && generationKey !== undefined;
  const generation = known ? current + 1 : 0;
  const key = known ? generationKey : randomBytes(32).toString('base64url');
  const refreshToken = `${grant.id}.${generation}.${tagOf(grant.id, generation, key)}.${newSecret()}`;
  return { refreshToken, record: { generation, generationKey: key, refreshHash: hashOf(refreshToken) } };
}

/** Whether `refreshToken` is one `grant` issued before its current one (spent): a tag right for an earlier generation. */
export function ofEarlierGeneration(refreshToken: string, grant: Generations & { id: string }): boolean {
  const [id, generation, tag] = refreshToken.split('.');
  const { generationKey } = grant;
  if (id !== grant.id || generationKey === undefined || grant.generation === undefined) return false;
  if (!/^\d{1,15}$/.test(generation ?? '') || Number(generation) >= grant.generation) return false;
  const expected = Buffer.from(tagOf(grant.id, Number(generation), generationKey));
  const given = Buffer.from(tag ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
