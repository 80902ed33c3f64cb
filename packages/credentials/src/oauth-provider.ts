import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type {
  AuthProviderSetup,
  CallSignal,
  CredentialRequest,
  CredentialResult,
  StoredToken,
  TokenStore,
} from '@toolhost/core';
import { ToolError } from '@toolhost/core';
import { sleep } from '@toolhost/engine/internal';
import type { AuthorizationFlows, RefreshLock } from '@toolhost/redis-store';
import type * as oauth from 'oauth4webapi';
import { AuthorizationServer, type OAuthProviderConfig, UnusableRotation } from './authorization-server.js';
import { MemoryAuthorizationSignals } from './authorization-signals.js';
import type { SignInProvider } from './browser-sign-in.js';
import { EncryptedFileTokenStore } from './encrypted-file-token-store.js';
import { OAuthSignIn } from './oauth-sign-in.js';
import { PendingAuthorizations } from './pending-authorizations.js';
import { awaitRefresh } from './refresh-deadline.js';
import {
  GrantEnded,
  lockLostMarking,
  markRefused,
  notMarked,
  notSentAgain,
  RefreshedElsewhere,
  type RefreshSettling,
  refusal,
  rotationLost,
  settleFailure,
  storedOver,
  supersededMeanwhile,
  unusableRotation,
} from './refresh-outcome.js';
import type { RefreshEvent, RefreshingProvider, RefreshOutcome } from './token-refresh.js';
import { UnsentMarks } from './unsent-marks.js';

/**
 * The credential side of OAuth 2.0 user authorization for one provider id: a token per user
 * from the token store, refreshed before expiry and once on a 401, with one refresh shared by
 * concurrent calls (and, with replicas or processes on one token file, under their lock). A
 * user without a usable token gets "authorization required" with a link into `signIn`, the
 * browser side, which writes the token this side reads.
 */
export class OAuthAuthProvider implements RefreshingProvider, SignInProvider {
  readonly id: string;
  /** The browser flow by which users authorize (and disconnect). */
  readonly signIn: OAuthSignIn;
  private readonly server: AuthorizationServer;
  private readonly refreshing = new Map<string, Promise<StoredToken | undefined>>();
  private readonly events = new EventEmitter();
  /** Rotated tokens the store refused (kept, used, and written again until it takes them). */
  private readonly unsaved = new Map<string, StoredToken>();
  private readonly saving = new Set<Promise<void>>();
  private readonly unsentMarks = new UnsentMarks();

  constructor(
    private readonly config: OAuthProviderConfig,
    private readonly store: TokenStore,
    private readonly now: () => number = Date.now,
    private refreshLock?: RefreshLock,
    flows?: AuthorizationFlows,
  ) {
    this.id = config.id;
    if (store instanceof EncryptedFileTokenStore) this.refreshLock ??= store.refreshLock;
    this.server = new AuthorizationServer(config, now);
    this.signIn = new OAuthSignIn(
      config,
      store,
      this.server,
      flows?.pending ?? new PendingAuthorizations(),
      flows?.signals ?? new MemoryAuthorizationSignals(),
    );
  }

  setup(): AuthProviderSetup {
    return { ok: true, detail: 'OAuth client configured: each user authorizes on first use' };
  }

  onRefreshed(listener: (event: RefreshEvent) => void): () => void {
    this.events.on('refreshed', listener);
    return () => this.events.off('refreshed', listener);
  }

  onLockWaited(listener: (ms: number) => void): () => void {
    this.events.on('lockWaited', listener);
    return () => this.events.off('lockWaited', listener);
  }

  async getCredentials(request: CredentialRequest): Promise<CredentialResult> {
    // A copy read a moment ago is enough here: a stale one is expired or rejected, and the
    // refresh that follows reads the store itself, under the lock.
    let token =
      this.unsaved.get(request.userId) ??
      (await (hasRecentReads(this.store)
        ? this.store.recent(this.id, request.userId)
        : this.store.get(this.id, request.userId)));
    if (!token || !this.grants(token, request.scopes)) return this.authorizationRequired(request, token);
    if (
      token.expiresAt !== undefined &&
      token.expiresAt - (this.config.refreshSkewSeconds ?? 60) * 1000 <= this.now()
    ) {
      const waited = request.onWait?.('token_refresh', undefined);
      try {
        token = await this.refreshShared(request.userId, token, request.signal);
      } catch (e) {
        if (e instanceof GrantEnded) return this.authorizationRequired(request, undefined, e.message);
        throw e;
      } finally {
        waited?.();
      }
      if (!token) return this.authorizationRequired(request, undefined);
    }
    return { kind: 'bearer', token: token.accessToken };
  }

  async onUnauthorized(request: CredentialRequest, rejected: string): Promise<CredentialResult | undefined> {
    let token = this.unsaved.get(request.userId) ?? (await this.store.get(this.id, request.userId));
    if (!token) return this.authorizationRequired(request, undefined);
    // Another call may have refreshed already: use its token rather than refreshing again.
    if (token.accessToken === rejected) {
      try {
        token = await this.refreshShared(request.userId, token, request.signal, rejected);
      } catch (e) {
        if (e instanceof GrantEnded) return this.authorizationRequired(request, undefined, e.message);
        throw e;
      }
    }
    if (!token) return this.authorizationRequired(request, undefined);
    return { kind: 'bearer', token: token.accessToken };
  }

  /** Any one of the listed scopes suffices (vendors list alternatives per endpoint). */
  private grants(token: StoredToken, scopes: readonly string[]): boolean {
    return scopes.length === 0 || scopes.some((s) => token.scopes.includes(s));
  }

  /** A sign-in for the scopes configured and granted so far, and one the call needs where none of those is. */
  private async authorizationRequired(
    request: CredentialRequest,
    token: StoredToken | undefined,
    why?: string,
  ): Promise<CredentialResult> {
    const wanted = new Set([...(this.config.scopes ?? []), ...(token?.scopes ?? [])]);
    if (request.scopes.length > 0 && !request.scopes.some((s) => wanted.has(s)))
      wanted.add(request.scopes[0]!);
    const { url, flowId } = await this.signIn.begin(request.userId, [...wanted]);
    return {
      kind: 'authorization_required',
      url,
      id: flowId,
      message: `${why ? `${why} ` : ''}Authorization with '${this.id}' is required: open the URL, approve access, then call the tool again.`,
    };
  }

  async close(waitMs = 0): Promise<void> {
    const running = [...this.refreshing.values()];
    if (running.length > 0 && waitMs > 0) {
      const done = new AbortController();
      await Promise.race([Promise.allSettled(running), sleep(waitMs, done.signal).catch(() => {})]);
      done.abort();
    }
    this.server.stop();
    await Promise.all([...this.saving]);
  }

  /**
   * This process's one refresh of the user's token (started, or joined), awaited until the
   * call's own deadline: the refresh request deadline (`tokenRequestTimeoutMs`), or the call
   * being cancelled. A call that stops waiting is told to try again (its request was not sent);
   * the refresh goes on, its lock held, and the next call joins it rather than send again.
   */
  private refreshShared(
    userId: string,
    token: StoredToken,
    signal?: CallSignal,
    rejected?: string,
  ): Promise<StoredToken | undefined> {
    let flight = this.refreshing.get(userId);
    if (!flight) {
      flight = this.refreshOnce(userId, token, rejected).finally(() => this.refreshing.delete(userId));
      this.refreshing.set(userId, flight);
      // Its outcome is each waiting call's; one left with no caller must not go unhandled.
      flight.catch(() => {});
    }
    return awaitRefresh(flight, this.id, this.config.tokenRequestTimeoutMs ?? 10_000, signal);
  }

  /**
   * Refreshes under the shared lock when there is one. A replica that finds the lock held
   * waits for the holder's token to appear in the store instead of refreshing itself; the
   * holder re-reads the store first, since another replica may have refreshed since our read.
   */
  private async refreshOnce(
    userId: string,
    stale: StoredToken,
    rejected?: string,
  ): Promise<StoredToken | undefined> {
    const lock = this.refreshLock;
    if (!lock) return this.refresh(userId, stale, () => {}, rejected);
    const started = Date.now();
    const deadline = started + lock.ttlMs + 5000;
    let waited = false;
    try {
      return await this.refreshUnderLock(userId, stale, lock, deadline, rejected, () => {
        waited = true;
      });
    } finally {
      if (waited) this.events.emit('lockWaited', Date.now() - started);
    }
  }

  private async refreshUnderLock(
    userId: string,
    stale: StoredToken,
    lock: RefreshLock,
    deadline: number,
    rejected: string | undefined,
    waiting: () => void,
  ): Promise<StoredToken | undefined> {
    const gaveUp = () =>
      new ToolError({
        code: 'upstream_unavailable',
        retryable: true,
        message: `Refreshing the access token with '${this.id}' failed on another host replica a moment ago; try again.`,
      });
    for (;;) {
      const release = await lock.acquire(this.id, userId);
      if (release) {
        let failed = false;
        let handedOff = false;
        try {
          const current = await this.store.get(this.id, userId);
          if (!current) return undefined;
          if (current.accessToken !== stale.accessToken) return current;
          // Taken over while this process stood still past its life: the new holder refreshes, this
          // one waits for its token (below, as for a lock found held).
          if (release.held?.() !== false)
            return await this.refresh(
              userId,
              current,
              (saved) => {
                // The lock stays held (and alive) until the rotated token is stored: no replica
                // refreshes meanwhile with the refresh token just used.
                handedOff = true;
                void saved.finally(() => release());
              },
              rejected,
              () => release.held?.() !== false,
            );
        } catch (e) {
          // Not sent: the process that took the lock over sends it; this one waits for its token (below).
          if (!(e instanceof RefreshedElsewhere)) {
            // Only a request that may have reached the vendor makes its refresh token suspect.
            failed = ToolError.isInstance(e) && e.code === 'upstream_unavailable' && !e.requestNotSent;
            throw e;
          }
        } finally {
          if (!handedOff) await release({ failed });
        }
      }
      waiting();
      await sleep(50);
      const current = this.unsaved.get(userId) ?? (await this.store.get(this.id, userId));
      if (!current) return undefined;
      if (current.accessToken !== stale.accessToken) return current;
      // Its refresh token may have reached the vendor in the failed request: not sent again now.
      if (await lock.recentlyFailed?.(this.id, userId)) throw gaveUp();
      if (Date.now() > deadline) {
        throw new ToolError({
          code: 'upstream_unavailable',
          retryable: true,
          message: `Another host replica is still refreshing the access token with '${this.id}'; try again.`,
        });
      }
    }
  }

  /**
   * One refresh request. A refresh token is sent at most once unless the vendor is known to
   * keep refresh tokens: the token is stored marked (`refreshSentAt`) before the request
   * leaves, and the mark goes only with an answer. A mark found here means an earlier request
   * got no answer (its connection dropped, its replica died): the vendor may have used that
   * refresh token, and a vendor that rotates them takes a second use for a stolen token and
   * revokes the grant. So it is not sent again: the access token serves while it is good, then
   * the user authorizes again. A rotated token the store refuses is never dropped: it is kept
   * here, used by this replica's calls, and written again until the store takes it; `unsaved`
   * is told, with the promise of that write. `stillHeld` says whether the lock (where it can tell)
   * is still this process's once the mark is stored: the mark's write may stand still past its life.
   */
  private async refresh(
    userId: string,
    token: StoredToken,
    unsaved: (saved: Promise<void>) => void,
    rejected?: string,
    stillHeld?: () => boolean,
  ): Promise<StoredToken | undefined> {
    if (!token.refreshToken) {
      await this.store.delete(this.id, userId);
      this.refreshed(
        'reauthorize',
        'no refresh token was issued: the token is deleted, the user must authorize again',
      );
      return undefined;
    }
    if (
      token.refreshSentAt !== undefined &&
      token.refreshRotates !== false &&
      !this.unsentMarks.ours(userId, token)
    )
      return notSentAgain(this.settling, userId, token, rejected);
    const { refreshSentAt: _earlier, refreshMark: _earlierMark, ...unmarked } = token;
    const mark = { ...unmarked, refreshSentAt: this.now(), refreshMark: randomUUID() };
    // undefined: not stored over `token` (superseded); false: the store refused the write.
    const marked = await storedOver(this.store, this.id, userId, mark, token).then(
      (ok) => ok || undefined,
      () => false,
    );
    if (marked === undefined) return markRefused(this.settling, userId, token);
    if (!marked && token.refreshRotates !== false) {
      // Sent under by nobody, if it landed: a process that took the lock over would have had to mark over it.
      if (stillHeld?.() !== false) this.unsent(userId, mark);
      return notMarked(this.settling, userId, token, mark, rejected);
    }
    // Looked at again right before the request: the lock may have been taken over meanwhile.
    if (stillHeld?.() === false) return lockLostMarking(this.settling, userId, token, mark);
    // What the refresh brings is written over its own mark where it was stored.
    const over = marked ? mark : token;
    let res: oauth.TokenEndpointResponse;
    try {
      res = await this.server.refresh(token.refreshToken);
    } catch (e) {
      if (!(e instanceof UnusableRotation)) {
        const failure = refusal(e);
        // The refresh token did not reach the vendor, or was answered untaken: good to send again.
        if (failure.kind === 'refused' || failure.kind === 'not_sent') this.unsent(userId, mark);
        return settleFailure(this.settling, userId, unmarked, mark, failure);
      }
      const rotates = e.refreshToken !== token.refreshToken;
      const issued = { ...unmarked, refreshToken: e.refreshToken, refreshRotates: rotates };
      if (await this.keep(userId, issued, over, unsaved)) return unusableRotation(this.settling, e.message);
      return supersededMeanwhile(this.settling, userId, { server: this.server, issued });
    }
    const next: StoredToken = {
      ...this.server.toStored(res, token.scopes, token),
      refreshRotates: res.refresh_token !== undefined && res.refresh_token !== token.refreshToken,
    };
    if (!(await this.keep(userId, next, over, unsaved)))
      return supersededMeanwhile(this.settling, userId, { server: this.server, issued: next });
    this.refreshed('ok', 'token refreshed');
    return next;
  }

  /**
   * Stores a token whose refresh token the vendor may have rotated, over the one refreshed
   * (`over`): one the store refuses is kept here and written again. False: the user disconnected
   * or signed in again meanwhile, and it is not stored.
   */
  private async keep(
    userId: string,
    next: StoredToken,
    over: StoredToken,
    unsaved: (saved: Promise<void>) => void,
  ): Promise<boolean> {
    try {
      return await storedOver(this.store, this.id, userId, next, over);
    } catch {
      this.unsaved.set(userId, next);
      unsaved(this.saveLater(userId, next, over));
      return true;
    }
  }

  /** Writes a rotated token the store refused, every half second until it takes it or the host stops. */
  private saveLater(userId: string, token: StoredToken, over: StoredToken): Promise<void> {
    const saved = (async () => {
      for (;;) {
        const last = this.server.stopped;
        try {
          if (!(await storedOver(this.store, this.id, userId, token, over)))
            await supersededMeanwhile(this.settling, userId, { server: this.server, issued: token }, true);
          break;
        } catch {
          if (last) return rotationLost(this.settling);
          await sleep(500);
        }
      }
      if (this.unsaved.get(userId) === token) this.unsaved.delete(userId);
    })();
    this.saving.add(saved);
    void saved.finally(() => this.saving.delete(saved));
    return saved;
  }

  /**
   * Remembers a mark nothing was sent under, where the store compares and writes in one step: the
   * read, compare and write of a store without `replace` could land it late, over another
   * process's mark, and that process's refresh token would then be taken for good to send.
   */
  private unsent(userId: string, mark: StoredToken): void {
    if (this.store.replace) this.unsentMarks.remember(userId, mark);
  }

  private refreshed(outcome: RefreshOutcome, why: string): void {
    this.events.emit('refreshed', { outcome, why } satisfies RefreshEvent);
  }

  /** What the settling of a refresh that returned no token needs (refresh-outcome.ts). */
  private get settling(): RefreshSettling {
    return { id: this.id, store: this.store, now: this.now, refreshed: (o, why) => this.refreshed(o, why) };
  }
}

/** A store that can answer a call's read from a copy it made a moment ago (the Redis store). */
interface RecentReads {
  recent(providerId: string, userId: string): Promise<StoredToken | undefined>;
}

function hasRecentReads(store: TokenStore): store is TokenStore & RecentReads {
  return typeof (store as Partial<RecentReads>).recent === 'function';
}
