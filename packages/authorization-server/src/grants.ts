import { randomUUID } from 'node:crypto';
import { GrantLists } from './grant-lists.js';
import { keepForPreviousVersion } from './previous-version.js';
import { type Generations, grantNamedBy, issueRefreshToken, ofEarlierGeneration } from './refresh-tokens.js';
import { hashOf, newSecret } from './secrets.js';
import type { SignInMethod } from './sign-in-binding.js';
import { DURABLY, expiryIn, SPEND_TRIES, secondsLeft, spend, undo } from './spending-writes.js';
import type { StateStore } from './state-store.js';
import { UnansweredSpends } from './unanswered-spends.js';

/** What a person consented to: this client may act as this user, with these scopes, at this resource. */
export interface Grant extends Generations {
  id: string;
  clientId: string;
  subject: string;
  scopes: string[];
  resource: string;
  /** Made by an access token sign-in: what it keeps of the token (sign-in-binding.ts), checked at each use. */
  binding?: string;
  /** How its person signed in (for the audit log); none in a grant made before grants said. */
  signedInWith?: SignInMethod;
  /** The refresh token now valid for this grant (its hash). */
  refreshHash?: string;
  /** The hashes of the refresh tokens it replaced, newest first (`SPENT_KEPT` of them). */
  spentHashes?: string[];
  createdAt: number;
  /** When its record expires as last written (ms since the epoch), for a take-back to keep. */
  expiresAt?: number;
}

/** An authorization code as issued, kept under its hash until redeemed or expired. */
export interface CodeRecord {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  subject: string;
  /** Consented to by a person signed in with an access token: what it keeps of it, for the grant. */
  binding?: string;
  signedInWith?: SignInMethod;
  scopes: string[];
  resource: string;
  /** When it expires (ms since the epoch), for a take-back to keep; set when issued. */
  expiresAt?: number;
}

/** A code as presented, not spent yet: its record, and the stored text its spending must find. */
export interface PresentedCode {
  record: CodeRecord;
  hash: string;
  saved: string;
}

/** A refresh token as presented, its grant's current one, not spent yet: that grant, as stored. */
export interface PresentedRefresh {
  grant: Grant;
  token: string;
  hash: string;
  saved: string;
  /** Whether it names its grant: one that does not (an older version's) keeps its record. */
  named?: boolean;
}

/** What a refresh token issued before tokens named their grant is kept under (its hash). */
interface RefreshRecord {
  grantId: string;
}

/** What a spent code's record becomes, naming the grant its presentation started. */
const SPENT = 'spent ';

/** What a refused code's mark names: no grant, so that its replay has none to revoke. */
const NO_GRANT = '-';

/**
 * How many spent refresh tokens a grant knows (by hash), for a presentation again to revoke it:
 * for a token without a generation (refresh-tokens.ts), issued before generations or by the
 * version before in a rolling deploy, found reused only while among them; and for that version,
 * which finds reuse by them alone. The hash, not the name, is the proof: a public client is known
 * by its id alone, and the grant id is in every access token, so a name alone would let anyone
 * who saw one revoke the grant at will.
 */
const SPENT_KEPT = 8;

export interface GrantLifetimes {
  codeSeconds: number;
  /** How long an access token is good for: a grant without a refresh token lasts as long. */
  accessSeconds: number;
  refreshSeconds: number;
}

/**
 * Codes, grants and refresh tokens, each secret kept only as its hash.
 *
 * A code or refresh token is spent by one write, the last its answer needs: a code's record
 * replaced by a mark naming the grant it started, once that grant is written; a refresh token
 * by its grant's record rewritten to name its successor, with it among the tokens it spent.
 * Each is a compare-and-set of one record as the presentation read it, so of two presentations
 * at once, even on two replicas or two hosts on one file, one spends it and the other finds it
 * spent. A presentation that fails on the way (the store away, its file full, its lock held by
 * another host) has spent nothing: the client's retry after the 503 is no replay, and nothing
 * is left to take back, which a store still failing could not do.
 *
 * Found spent, a code or refresh token is presented again after a presentation was answered,
 * so two parties may hold what it gave: the grant is revoked (OAuth 2.1; what leaked is then
 * worth nothing to either). Why this catches reuse: a refresh token stolen and presented after
 * its client rotated it finds its grant moved on past its generation (presented before, the
 * client's presentation finds that, however often the thief rotated since); two presentations
 * at once both read it current, one compare-and-set succeeds, and the other then finds it
 * spent. No moment lies between spending a token and writing its successor for a second
 * presentation to slip through, and only a presentation that was answered spends one, so
 * reuse is never a retry. Save one: a spending write the store took but never acknowledged,
 * silent past the seconds its presentation waits to take it back (a failover), spends what was
 * never answered; the host that wrote it takes it back once the store answers, or at once for
 * a retry it receives (unanswered-spends.ts), and a retry elsewhere before then reads as reuse.
 *
 * What a client is handed (a code, a refresh token) and what spends one are durable writes: a
 * failover of a replicated store must not forget a refresh token the client now holds, nor
 * bring back a code already redeemed. A spending write short of its replicas (which the master
 * may hold) is put back, best effort, and fails (`store_unavailable`) for the client to retry.
 *
 * A person keeps their newest grants per client (grant-lists.ts); `ended` is told of each
 * older one revoked for it.
 */
export class Grants {
  private readonly lists: GrantLists<Grant>;
  /** This host's spends the store never answered about, taken back rather than read as reuse. */
  private readonly unanswered: UnansweredSpends;

  constructor(
    private readonly store: StateStore,
    private readonly lifetimes: GrantLifetimes,
    ended?: (grant: Grant) => void,
  ) {
    const ending = {
      alive: async (id: string) => (await this.grant(id)) !== undefined,
      endOnce: this.endOnce,
    };
    this.lists = new GrantLists(store, ending, ended);
    this.unanswered = new UnansweredSpends(store);
  }

  async issueCode(record: CodeRecord): Promise<string> {
    const code = newSecret();
    const seconds = this.lifetimes.codeSeconds;
    const saved = JSON.stringify({ ...record, expiresAt: expiryIn(seconds) } satisfies CodeRecord);
    await this.store.set(`code:${hashOf(code)}`, saved, seconds, DURABLY);
    return code;
  }

  /** A code issued but never handed out (its request was answered meanwhile). */
  async discardCode(code: string): Promise<void> {
    await this.store.delete(`code:${hashOf(code)}`);
  }

  /**
   * A code as presented, its record read and not spent yet: the token endpoint checks the
   * request against it, then spends it (`start`, or `refuse`). Undefined when unknown, expired
   * or spent: a spent one is replayed, and the grant it started is revoked.
   */
  async presentCode(code: string): Promise<PresentedCode | undefined> {
    const hash = hashOf(code);
    const key = `code:${hash}`;
    let saved = await this.store.get(key);
    // This host's spend whose presentation failed unanswered by the store: no replay, a retry.
    if (await this.unanswered.takeBack(key, saved, hash)) saved = await this.store.get(key);
    if (saved !== undefined && !saved.startsWith(SPENT))
      return { record: JSON.parse(saved) as CodeRecord, hash, saved };
    await this.replayed('code', hash, saved);
    return undefined;
  }

  /** Spends a code whose presentation is refused: a code is spent by its first, right or wrong. */
  async refuse(presented: PresentedCode): Promise<void> {
    await this.spendCode(presented, NO_GRANT);
  }

  /**
   * Starts the grant of a presented code (with its first refresh token where the client may
   * refresh, else kept only while the access token issued now is good), then spends the code
   * naming it: until then nobody holds its tokens, so a failure on the way leaves the code to
   * the client's retry (and, best effort, no grant). Undefined where another presentation spent
   * the code first: a replay, whose grant is revoked. The grant joins its person's list for the
   * client before the spend (a grant nobody listed is one the bound misses), and only once the
   * code is spent do the oldest past the bound end: a presentation that failed ends nothing.
   */
  async start(
    presented: PresentedCode,
    refreshable: boolean,
  ): Promise<{ grant: Grant; refreshToken: string | undefined } | undefined> {
    const { clientId, subject, scopes, resource, binding, signedInWith } = presented.record;
    const id = randomUUID();
    const issued = refreshable ? issueRefreshToken({ id }) : undefined;
    const refreshToken = issued?.refreshToken;
    const ttl = refreshToken ? this.lifetimes.refreshSeconds : this.lifetimes.accessSeconds + 60;
    const grant: Grant = {
      id,
      clientId,
      subject,
      ...(binding !== undefined ? { binding } : {}),
      ...(signedInWith !== undefined ? { signedInWith } : {}),
      scopes,
      resource,
      ...issued?.record,
      createdAt: Date.now(),
      expiresAt: expiryIn(ttl),
    };
    const key = `grant:${id}`;
    const saved = JSON.stringify(grant);
    let spent = false;
    // The grant nobody holds, where its code's spend fails: now, and (its outcome unknown) again
    // once the spend is taken back.
    const withdraw = async () => {
      await undo(this.store, key, saved, () => this.store.delete(key));
      await this.lists.takeBack(grant);
    };
    try {
      await this.store.set(key, saved, ttl, DURABLY);
      await this.lists.add(grant);
      spent = await this.spendCode(presented, id, withdraw);
    } finally {
      if (!spent) await withdraw();
    }
    if (!spent) return undefined;
    await this.lists.settle(grant);
    if (refreshToken) await keepForPreviousVersion(this.store, id, hashOf(refreshToken), undefined, ttl);
    return { grant, refreshToken };
  }

  /**
   * Spends a presented code, naming `grantId`: false where it was spent meanwhile (a replay).
   * Found unspent again after all (another's write taken back), it is spent again.
   */
  private async spendCode(
    presented: PresentedCode,
    grantId: string,
    thenUndo?: () => Promise<unknown>,
  ): Promise<boolean> {
    const key = `code:${presented.hash}`;
    // A refusal is not remembered: its retry, found spent, is refused as the refusal was.
    const unanswered =
      grantId === NO_GRANT ? undefined : { into: this.unanswered, presented: presented.hash, thenUndo };
    const { codeSeconds } = this.lifetimes;
    // The mark is kept while the code could still be replayed, so that a replay finds the grant.
    const seconds = { spent: codeSeconds * 10, back: secondsLeft(presented.record.expiresAt, codeSeconds) };
    for (let tries = 1; ; tries += 1) {
      if (await spend(this.store, key, presented.saved, `${SPENT}${grantId}`, seconds, unanswered))
        return true;
      const now = await this.store.get(key);
      if (now === presented.saved && tries < SPEND_TRIES) continue;
      if (now !== presented.saved) await this.replayed('code', presented.hash, now);
      return false;
    }
  }

  /**
   * Revokes the grant a spent code names: its record's mark, or (spent before this version)
   * the mark beside it of a code or refresh token (`<grant id> <presentation>`).
   */
  private async replayed(kind: 'code' | 'refresh', hash: string, saved: string | undefined): Promise<void> {
    const spentFor = saved?.startsWith(SPENT)
      ? saved.slice(SPENT.length)
      : (await this.store.get(`${kind}-used:${hash}`))?.split(' ')[0];
    if (spentFor && spentFor !== NO_GRANT) await this.revoke(spentFor);
  }

  async grant(id: string): Promise<Grant | undefined> {
    const saved = await this.savedGrant(id);
    return saved === undefined ? undefined : (JSON.parse(saved) as Grant);
  }

  /** A grant's record as stored, unless revoked. */
  private async savedGrant(id: string): Promise<string | undefined> {
    const saved = await this.store.get(`grant:${id}`);
    if (saved === undefined || (await this.store.get(`revoked:${id}`)) !== undefined) return undefined;
    return saved;
  }

  /**
   * A refresh token as presented: its grant, where it is that grant's current token, not spent
   * yet (the token endpoint checks the request, then spends it by `rotate`). One its grant
   * spent, presented by the grant's client, is reuse (it leaked, or the client lost an answer):
   * its successor was handed out, so two parties hold the grant, which is revoked, as OAuth 2.1
   * asks of rotating refresh tokens.
   */
  async presentRefresh(refreshToken: string, clientId: string): Promise<PresentedRefresh | undefined> {
    const hash = hashOf(refreshToken);
    const grantId = await this.grantIdOf(refreshToken, hash);
    const named = grantNamedBy(refreshToken) !== undefined;
    if (grantId !== undefined) return this.currentOrReused(grantId, refreshToken, clientId, named);
    // A token without a name, spent before this version: a mark beside its record names its grant.
    await this.replayed('refresh', hash, undefined);
    return undefined;
  }

  /**
   * The presentation of a grant's refresh token: its current one, or a spent one (reuse,
   * revoked): of an earlier generation, or among the last spent (those without one).
   */
  private async currentOrReused(
    grantId: string,
    token: string,
    clientId: string,
    named?: boolean,
  ): Promise<PresentedRefresh | undefined> {
    const hash = hashOf(token);
    const saved = await this.savedFor(grantId, hash);
    if (saved === undefined) return undefined;
    const grant = JSON.parse(saved) as Grant;
    if (grant.refreshHash === hash) return { grant, token, hash, saved, named };
    const spent = grant.spentHashes?.includes(hash) || ofEarlierGeneration(token, grant);
    if (grant.clientId === clientId && spent) await this.revoke(grant.id);
    return undefined;
  }

  /**
   * Spends a presented refresh token for a new one (answered), which names its grant: the
   * grant's record, as presented, rewritten in one step to hold the new token's hash and the
   * spent one's among its last spent ones. Undefined where another presentation spent it first
   * (reuse: the grant is revoked) or the grant was revoked meanwhile.
   */
  async rotate(presented: PresentedRefresh, binding = presented.grant.binding): Promise<string | undefined> {
    let current: PresentedRefresh | undefined = presented;
    // Found current again after all (another presentation's write taken back), it is spent again.
    for (let tries = 0; current !== undefined && tries < SPEND_TRIES; tries += 1) {
      const { grant, hash } = current;
      const { refreshToken, record } = issueRefreshToken(grant);
      const spentHashes = [hash, ...(grant.spentHashes ?? [])].slice(0, SPENT_KEPT);
      const { refreshSeconds } = this.lifetimes;
      const expiresAt = expiryIn(refreshSeconds);
      const updated: Grant = { ...grant, ...record, spentHashes, expiresAt, ...(binding ? { binding } : {}) };
      const seconds = { spent: refreshSeconds, back: secondsLeft(grant.expiresAt, refreshSeconds) };
      const written = JSON.stringify(updated);
      const unanswered = { into: this.unanswered, presented: hash };
      if (await spend(this.store, `grant:${grant.id}`, current.saved, written, seconds, unanswered)) {
        const spentHash = presented.named ? hash : undefined;
        await keepForPreviousVersion(this.store, grant.id, updated.refreshHash!, spentHash, refreshSeconds);
        await this.lists.extend(updated);
        return refreshToken;
      }
      current = await this.currentOrReused(grant.id, presented.token, grant.clientId, presented.named);
    }
    return undefined;
  }

  /** The grant a refresh token is the current token of, without spending it (revocation). */
  async grantOfRefresh(refreshToken: string): Promise<Grant | undefined> {
    const hash = hashOf(refreshToken);
    const grantId = await this.grantIdOf(refreshToken, hash);
    const saved = grantId === undefined ? undefined : await this.savedFor(grantId, hash);
    const grant = saved === undefined ? undefined : (JSON.parse(saved) as Grant);
    return grant?.refreshHash === hash ? grant : undefined;
  }

  /**
   * A grant's record as stored, unless revoked, with this host's rotation of the refresh token
   * presented (`hash`) taken back where its presentation failed unanswered by the store: that
   * token is no reuse but a retry, and a revocation of it ends the grant.
   */
  private async savedFor(grantId: string, hash: string): Promise<string | undefined> {
    const saved = await this.savedGrant(grantId);
    if (saved === undefined || !(await this.unanswered.takeBack(`grant:${grantId}`, saved, hash)))
      return saved;
    return this.savedGrant(grantId);
  }

  /** The grant a refresh token names, or (issued before tokens named it) its record does. */
  private async grantIdOf(refreshToken: string, hash: string): Promise<string | undefined> {
    const named = grantNamedBy(refreshToken);
    if (named !== undefined) return named;
    const saved = await this.store.get(`refresh:${hash}`);
    return saved === undefined ? undefined : (JSON.parse(saved) as RefreshRecord).grantId;
  }

  /**
   * Ends a grant: its refresh token, and the access tokens issued under it, stop working. A
   * mark outlives the grant's record: a rotation under way may write that record again before
   * it is deleted, and the mark, durable, is what a failover must not lose.
   */
  async revoke(grantId: string): Promise<void> {
    const grant = await this.grant(grantId);
    await this.store.set(`revoked:${grantId}`, '1', this.lifetimes.refreshSeconds + 60, DURABLY);
    await this.forget(grantId, grant);
  }

  /**
   * Revokes a live grant where no other revocation marked it first: the grant, where this one
   * did (for its one report, however many writers race to end it), else undefined.
   */
  private readonly endOnce = async (grantId: string): Promise<Grant | undefined> => {
    const grant = await this.grant(grantId);
    const mark = () =>
      this.store.setIfAbsent(`revoked:${grantId}`, '1', this.lifetimes.refreshSeconds + 60, DURABLY);
    if (grant === undefined || !(await mark())) return undefined;
    await this.forget(grantId, grant);
    return grant;
  };

  /** A revoked grant's records. */
  private async forget(grantId: string, grant: Grant | undefined): Promise<void> {
    await this.store.delete(`grant:${grantId}`);
    // A refresh token issued before tokens named their grant has a record of its own.
    if (grant?.refreshHash) await this.store.delete(`refresh:${grant.refreshHash}`);
  }
}
