import { randomUUID } from 'node:crypto';
import { hashOf, newSecret } from './secrets.js';
import type { StateStore } from './state-store.js';

/** What a person consented to: this client may act as this user, with these scopes, at this resource. */
export interface Grant {
  id: string;
  clientId: string;
  subject: string;
  scopes: string[];
  resource: string;
  /** The refresh token now valid for this grant (its hash). */
  refreshHash?: string;
  /** The hashes of the refresh tokens it replaced, newest first (`SPENT_KEPT` of them). */
  spentHashes?: string[];
  createdAt: number;
}

/** An authorization code as issued, kept under its hash until redeemed or expired. */
export interface CodeRecord {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  subject: string;
  scopes: string[];
  resource: string;
}

/** A code's record as redeemed, with the id of the grant it starts. */
export interface RedeemedCode extends CodeRecord {
  grantId: string;
}

interface RefreshRecord {
  grantId: string;
}

/**
 * A code or refresh token spent by a presentation whose answer is still being written: what
 * puts it back if the store cannot take that answer (`unspend`).
 */
interface Spent {
  kind: 'code' | 'refresh';
  hash: string;
  saved: string;
}

const DURABLY = { durable: true } as const;

/**
 * How long a refresh token that names its grant is marked spent: while its rotation may still
 * be under way. Later its grant's record knows it among its last spent ones, so that a grant
 * refreshed every minute for a month leaves no month of marks behind.
 */
const SPENT_NAMED_SECONDS = 60;

/**
 * How many spent refresh tokens a grant knows (by hash), for a presentation again to revoke it.
 * A leaked token is used, and its twin presented, within a rotation or two; an older one is
 * only refused. The hash, not the name, is the proof: a public client is known by its id alone,
 * and the grant id is in every access token, so a name alone would let anyone who saw one
 * revoke the grant at will.
 */
const SPENT_KEPT = 8;

/** The grant a refresh token names (`<grant id>.<secret>`; those issued before name none). */
function grantNamedBy(refreshToken: string): string | undefined {
  const id = refreshToken.split('.')[0]!;
  return refreshToken.includes('.') && /^[0-9a-f-]{36}$/.test(id) ? id : undefined;
}

export interface GrantLifetimes {
  codeSeconds: number;
  /** How long an access token is good for: a grant without a refresh token lasts as long. */
  accessSeconds: number;
  refreshSeconds: number;
}

/**
 * Codes, grants and refresh tokens, each secret kept only as its hash. A code and a refresh
 * token are taken from the store (read and deleted at once), so of two redemptions, even on
 * two replicas, one wins; the other finds the secret marked used, which revokes the grant
 * (a leaked code or refresh token is then worth nothing to either party).
 *
 * What a client is handed (a code, a refresh token) and the marks of spent ones are durable
 * writes: a failover of a replicated store must not forget a refresh token the client now
 * holds (signing its person out) nor bring back a code already redeemed. A presentation whose
 * answer the store could not take durably fails (`store_unavailable`) with its code or refresh
 * token put back, so that the client's retry is not read as reuse.
 */
export class Grants {
  private readonly spent = new WeakMap<object, Spent>();

  constructor(
    private readonly store: StateStore,
    private readonly lifetimes: GrantLifetimes,
  ) {}

  async issueCode(record: CodeRecord): Promise<string> {
    const code = newSecret();
    await this.store.set(`code:${hashOf(code)}`, JSON.stringify(record), this.lifetimes.codeSeconds, DURABLY);
    return code;
  }

  /** A code issued but never handed out (its request was answered meanwhile). */
  async discardCode(code: string): Promise<void> {
    await this.store.delete(`code:${hashOf(code)}`);
  }

  /**
   * Redeems a code once: its record and the id its grant will have, or undefined (unknown,
   * expired or already used; a second use revokes the grant the first one made). The code is
   * marked used, naming that grant, before it is taken: of two presentations at once, the
   * second always finds the mark.
   */
  async redeemCode(code: string): Promise<RedeemedCode | undefined> {
    const grantId = randomUUID();
    const hash = hashOf(code);
    // The mark is kept while the code could still be replayed, so that a replay finds the grant.
    const saved = await this.takeOnce('code', hash, () => grantId, this.lifetimes.codeSeconds * 10);
    if (saved === undefined) return undefined;
    const redeemed: RedeemedCode = { ...(JSON.parse(saved) as CodeRecord), grantId };
    this.spent.set(redeemed, { kind: 'code', hash, saved });
    return redeemed;
  }

  /**
   * Starts the grant of a redeemed code: with its first refresh token where the client may
   * refresh, else kept only while the access token issued now is good (revocation ends it).
   */
  async start(
    redeemed: RedeemedCode,
    refreshable: boolean,
  ): Promise<{ grant: Grant; refreshToken: string | undefined }> {
    const grant: Grant = {
      id: redeemed.grantId,
      clientId: redeemed.clientId,
      subject: redeemed.subject,
      scopes: redeemed.scopes,
      resource: redeemed.resource,
      createdAt: Date.now(),
    };
    return this.orUnspent(redeemed, grant, async () => {
      if (refreshable) return { grant, refreshToken: await this.written(grant) };
      const seconds = this.lifetimes.accessSeconds + 60;
      await this.store.set(`grant:${grant.id}`, JSON.stringify(grant), seconds, DURABLY);
      return { grant, refreshToken: undefined };
    });
  }

  async grant(id: string): Promise<Grant | undefined> {
    const saved = await this.store.get(`grant:${id}`);
    if (saved === undefined || (await this.store.get(`revoked:${id}`)) !== undefined) return undefined;
    return JSON.parse(saved) as Grant;
  }

  /**
   * Exchanges a refresh token for its grant, the token then spent. A token already spent
   * means it leaked (or the client lost a response): the grant is revoked, as OAuth 2.1
   * asks of rotating refresh tokens. A token that names its grant is such a token when the
   * grant knows its hash among its last spent ones and its own client presents it.
   */
  async redeemRefresh(refreshToken: string, clientId: string): Promise<Grant | undefined> {
    const hash = hashOf(refreshToken);
    const grantIdOf = (saved: string) => (JSON.parse(saved) as RefreshRecord).grantId;
    const named = grantNamedBy(refreshToken);
    const markSeconds = named ? SPENT_NAMED_SECONDS : this.lifetimes.refreshSeconds;
    const saved = await this.takeOnce('refresh', hash, grantIdOf, markSeconds);
    if (saved === undefined) {
      const grant = named === undefined ? undefined : await this.grant(named);
      if (grant?.clientId === clientId && grant.spentHashes?.includes(hash)) await this.revoke(grant.id);
      return undefined;
    }
    const grant = await this.grant(grantIdOf(saved));
    if (grant?.refreshHash !== hash) return undefined;
    this.spent.set(grant, { kind: 'refresh', hash, saved });
    return grant;
  }

  /**
   * Takes a code's or refresh token's record once. It is marked spent, naming its grant, before
   * it is taken, and only once: of two presentations at once the second always finds the mark
   * (taking first left a moment in which it found neither), and revokes the grant it names.
   */
  private async takeOnce(
    kind: 'code' | 'refresh',
    hash: string,
    grantIdOf: (saved: string) => string,
    markSeconds: number,
  ): Promise<string | undefined> {
    const saved = await this.store.get(`${kind}:${hash}`);
    const mark = `${kind}-used:${hash}`;
    // The grant it names, and whose mark it is (two presentations of one token name one grant).
    const ours = saved === undefined ? '' : `${grantIdOf(saved)} ${randomUUID()}`;
    let first = false;
    try {
      first = saved !== undefined && (await this.store.setIfAbsent(mark, ours, markSeconds, DURABLY));
    } catch (e) {
      // Perhaps written, short of its replicas: the retry must not find it and read reuse.
      await this.unmark(mark, ours);
      throw e;
    }
    if (!first) {
      const spentFor = (await this.store.get(mark))?.split(' ')[0];
      if (spentFor) await this.revoke(spentFor);
      return undefined;
    }
    try {
      return (await this.store.take(`${kind}:${hash}`)) === undefined ? undefined : saved;
    } catch (e) {
      // Not taken (a file store's write failed, the lock held by another host): the retry must
      // find the record and no mark, or it would read as reuse and revoke the grant.
      await this.unmark(mark, ours);
      throw e;
    }
  }

  /** Takes away our own spent mark (best effort: the store may still be away). */
  private async unmark(mark: string, ours: string): Promise<void> {
    if ((await this.store.get(mark).catch(() => undefined)) === ours)
      await this.store.delete(mark).catch(() => {});
  }

  /**
   * A new refresh token for the grant (as `redeemRefresh` answered it), which now names only
   * it. Fails with the spent refresh token put back if the store cannot take it durably.
   */
  rotate(grant: Grant): Promise<string> {
    return this.orUnspent(grant, grant, () => this.written(grant));
  }

  /** The grant written with a new refresh token, durably; the token. */
  private async written(grant: Grant): Promise<string> {
    const refreshToken = `${grant.id}.${newSecret()}`;
    const hash = hashOf(refreshToken);
    const spentHashes = grant.refreshHash
      ? [grant.refreshHash, ...(grant.spentHashes ?? [])]
      : grant.spentHashes;
    const updated: Grant = { ...grant, refreshHash: hash, spentHashes: spentHashes?.slice(0, SPENT_KEPT) };
    const ttl = this.lifetimes.refreshSeconds;
    await this.store.set(`grant:${grant.id}`, JSON.stringify(updated), ttl, DURABLY);
    await this.store.set(
      `refresh:${hash}`,
      JSON.stringify({ grantId: grant.id } satisfies RefreshRecord),
      ttl,
      DURABLY,
    );
    return refreshToken;
  }

  /**
   * `write`'s answer; if it fails, what it may have written for `grant` goes, and the code or
   * refresh token `presented` spent is put back (best effort: the store may be away), then the
   * failure goes on.
   */
  private async orUnspent<T>(presented: object, grant: Grant, write: () => Promise<T>): Promise<T> {
    const spent = this.spent.get(presented);
    this.spent.delete(presented);
    try {
      return await write();
    } catch (e) {
      if (spent) await this.unspend(spent, grant).catch(() => {});
      throw e;
    }
  }

  /** `grant` as the presentation found it (a refresh's, before its rotation). */
  private async unspend(spent: Spent, grant: Grant): Promise<void> {
    const now = await this.store.get(`grant:${grant.id}`);
    const written = now === undefined ? undefined : (JSON.parse(now) as Grant).refreshHash;
    if (written && written !== spent.hash) await this.store.delete(`refresh:${written}`);
    if (spent.kind === 'refresh') {
      const ttl = this.lifetimes.refreshSeconds;
      await this.store.set(`grant:${grant.id}`, JSON.stringify(grant), ttl);
      await this.store.set(`refresh:${spent.hash}`, spent.saved, ttl);
    } else {
      await this.store.delete(`grant:${grant.id}`);
      await this.store.set(`code:${spent.hash}`, spent.saved, this.lifetimes.codeSeconds);
    }
    // Last: until now a presentation finds the mark and no record, and is refused.
    await this.store.delete(`${spent.kind}-used:${spent.hash}`);
  }

  /** The grant a refresh token belongs to, without spending it (revocation). */
  async grantOfRefresh(refreshToken: string): Promise<Grant | undefined> {
    const saved = await this.store.get(`refresh:${hashOf(refreshToken)}`);
    if (saved === undefined) return undefined;
    return this.grant((JSON.parse(saved) as RefreshRecord).grantId);
  }

  /**
   * Ends a grant: its refresh token, and the access tokens issued under it, stop working. A
   * mark outlives the grant's record, since a refresh redeemed just before (on another replica)
   * rotates next and writes that record again.
   */
  async revoke(grantId: string): Promise<void> {
    const grant = await this.grant(grantId);
    // The mark is what ends the grant everywhere: a failover must not bring the grant back.
    await this.store.set(`revoked:${grantId}`, '1', this.lifetimes.refreshSeconds + 60, { durable: true });
    await this.store.delete(`grant:${grantId}`);
    if (grant?.refreshHash) await this.store.delete(`refresh:${grant.refreshHash}`);
  }
}
