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
 */
export class Grants {
  constructor(
    private readonly store: StateStore,
    private readonly lifetimes: GrantLifetimes,
  ) {}

  async issueCode(record: CodeRecord): Promise<string> {
    const code = newSecret();
    await this.store.set(`code:${hashOf(code)}`, JSON.stringify(record), this.lifetimes.codeSeconds);
    return code;
  }

  /**
   * Redeems a code once: its record and the id its grant will have, or undefined (unknown,
   * expired or already used; a second use revokes the grant the first one made). The code is
   * marked used, naming that grant, before it is taken: of two presentations at once, the
   * second always finds the mark.
   */
  async redeemCode(code: string): Promise<RedeemedCode | undefined> {
    const grantId = randomUUID();
    // The mark is kept while the code could still be replayed, so that a replay finds the grant.
    const saved = await this.takeOnce('code', hashOf(code), () => grantId, this.lifetimes.codeSeconds * 10);
    return saved === undefined ? undefined : { ...(JSON.parse(saved) as CodeRecord), grantId };
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
    if (refreshable) return { grant, refreshToken: await this.rotate(grant) };
    await this.store.set(`grant:${grant.id}`, JSON.stringify(grant), this.lifetimes.accessSeconds + 60);
    return { grant, refreshToken: undefined };
  }

  async grant(id: string): Promise<Grant | undefined> {
    const saved = await this.store.get(`grant:${id}`);
    if (saved === undefined || (await this.store.get(`revoked:${id}`)) !== undefined) return undefined;
    return JSON.parse(saved) as Grant;
  }

  /**
   * Exchanges a refresh token for its grant, the token then spent. A token already spent
   * means it leaked (or the client lost a response): the grant is revoked, as OAuth 2.1
   * asks of rotating refresh tokens.
   */
  async redeemRefresh(refreshToken: string): Promise<Grant | undefined> {
    const hash = hashOf(refreshToken);
    const grantIdOf = (saved: string) => (JSON.parse(saved) as RefreshRecord).grantId;
    const saved = await this.takeOnce('refresh', hash, grantIdOf, this.lifetimes.refreshSeconds);
    if (saved === undefined) return undefined;
    const grant = await this.grant(grantIdOf(saved));
    return grant?.refreshHash === hash ? grant : undefined;
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
    const first = saved !== undefined && (await this.store.setIfAbsent(mark, grantIdOf(saved), markSeconds));
    if (!first) {
      const spentFor = await this.store.get(mark);
      if (spentFor !== undefined) await this.revoke(spentFor);
      return undefined;
    }
    return (await this.store.take(`${kind}:${hash}`)) === undefined ? undefined : saved;
  }

  /** A new refresh token for the grant, which now names only it. */
  async rotate(grant: Grant): Promise<string> {
    const refreshToken = newSecret();
    const hash = hashOf(refreshToken);
    const updated: Grant = { ...grant, refreshHash: hash };
    const ttl = this.lifetimes.refreshSeconds;
    await this.store.set(`grant:${grant.id}`, JSON.stringify(updated), ttl);
    await this.store.set(
      `refresh:${hash}`,
      JSON.stringify({ grantId: grant.id } satisfies RefreshRecord),
      ttl,
    );
    return refreshToken;
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
