/**
 * The ports between the host and its shared store: what the store implements for the host
 * (the host's in-process implementations implement the same), and what the host lends the
 * store (its logger, its cipher, its waiters). Types only: the host imports them as types and
 * loads this package only when a store is configured.
 */

/**
 * The port through which the transports (HTTP, stdio) and the MCP layer use what replicas share
 * (Redis): only what they use, never the store itself (its token store, cipher and client stay
 * with the host). shared-store.ts implements it.
 */
export interface Replicas {
  /** A key every replica derives alike (from TOOLHOST_TOKEN_KEY), for signing what any replica verifies. */
  signingKey(purpose: string): Buffer;
  /** Whether this replica reaches the shared store now (readiness). */
  reachable(): boolean;
  /** The MCP sessions replicas share, each expiring after `idleMs` unused. */
  sessions(idleMs: number): ReplicaSessions;
  /** Results too large for a tool result, readable on every replica by their owner. */
  readonly results: SharedResults;
  /** Redis commands, for the host's own authorization server's state (http/own-authorization-server.ts) only. */
  readonly redis: {
    call(command: string, ...args: (string | number)[]): Promise<unknown>;
    /**
     * One write command, as `call` takes it (a key first, or a script's keys after it), answered
     * once `store.replicaAcks` replicas hold it; short of them it rejects (`store_unavailable`),
     * though the master may have it.
     */
    callDurably(command: string, ...args: (string | number)[]): Promise<unknown>;
  };
}

/** A result too large for a tool result, kept for `resources/read`. */
export interface StoredResult {
  uri: string;
  /** The canonical name of the tool that produced it. */
  tool: string;
  /** The whole result text (the upstream body as JSON). */
  text: string;
  bytes: number;
  expiresAt: number;
}

/** Results shared by replicas (redis-results.ts). */
export interface SharedResults {
  /** Keeps `result`; the owner's oldest beyond `maxUserBytes` across the replicas go. */
  put(result: StoredResult & { userId: string }, maxUserBytes: number): Promise<void>;
  get(uri: string, userId: string): Promise<StoredResult | undefined>;
  list(userId: string): Promise<Omit<StoredResult, 'text'>[]>;
  /** Told when a result could not be shared (it stays readable on the replica that made it). */
  shareFailed(error: unknown): void;
}

/** What any replica needs to serve a session another one opened. */
export interface SessionRecord {
  /** The user whose access token opened it: only their token may use it. */
  userId: string;
  /** Whose session cap it counts against (the user, or the user and client name). */
  owner: string;
  /** The client's initialize request, replayed to rebuild the session's MCP server. */
  initialize: unknown;
  /**
   * Requests that set how the session is served, made since (the client's last logging level,
   * as a `logging/setLevel`), handed to a rebuilt session's server after its handshake.
   */
  settings?: unknown[];
}

/**
 * MCP sessions (the legacy era over HTTP) shared by replicas, so that a client's requests may
 * land on any replica (redis-sessions.ts).
 */
export interface ReplicaSessions {
  /** Records a new session; when that fails, a record that lands all the same is removed once Redis answers. */
  save(id: string, record: SessionRecord): Promise<void>;
  find(id: string): Promise<SessionRecord | undefined>;
  /** Extends the session's life: it was used here. */
  touch(id: string): void;
  /** Ends the session on every replica. */
  remove(id: string): Promise<void>;
  /**
   * Calls `handler` with each session ended on any replica; after this replica's subscription
   * was down a moment, also with those of the sessions `held` names (its own) ended meanwhile.
   * A session this replica uses and finds without a record (its `touch`) counts as ended too.
   */
  onClosed(handler: (id: string) => void, held?: () => Iterable<string>): Promise<void>;
  /**
   * Records that the session waits for the completion of a URL elicitation (a sign-in flow of
   * that id) for `ttlMs` (the flow's life), so that whichever replica completes the flow finds
   * the session: the replica that answered the call need not be alive then.
   */
  expectCompletion(id: string, elicitationId: string, ttlMs: number): Promise<void>;
  /**
   * The flow `elicitationId` completed (on this replica): the completion notice of the session
   * waiting for it is stored for that session and every replica told, so that the one holding
   * its event stream delivers it, or the next replica the client opens a stream on.
   */
  completed(elicitationId: string): Promise<void>;
  /**
   * Calls `handler` with each notice published; after this replica's subscription was down a
   * moment, also with those stored meanwhile for the sessions `held` names (its own).
   */
  onCompletion(
    handler: (id: string, elicitationId: string) => void,
    held?: () => Iterable<string>,
  ): Promise<void>;
  /** Takes a stored notice for delivery: true on exactly one replica. */
  claimNotice(id: string, elicitationId: string): Promise<boolean>;
  /** Takes every notice stored for the session (each on exactly one replica). */
  takeNotices(id: string): Promise<string[]>;
  /**
   * Stores again, first in line and in their order, notices taken that no stream took (the
   * client's stream closed in between), and tells every replica as `completed` does: the one
   * holding the client's stream, or the next it opens, delivers them.
   */
  putBackNotices(id: string, elicitationIds: string[]): Promise<void>;
  /**
   * The client's answers to a server's request (and cancellations of its own), to every replica
   * holding the session (`userId`'s), a message or a batch. Rejects while Redis is away;
   * cancellations alone are relayed all the same once it answers again (within a minute, within
   * the user's share of what a replica keeps meanwhile), since their client sends them once.
   * Rejects with `payload_too_large`, sending nothing, where they take more than 256 KiB.
   */
  relayAnswers(id: string, userId: string, parsed: unknown): Promise<void>;
  /**
   * Cancellations of `userId` for a session this replica holds no copy of, taken while Redis is
   * away (its record cannot be read): relayed as `relayAnswers` does once Redis answers, within a
   * minute, if the session is then found to be `userId`'s. False where the message is not only
   * cancellations, or there is no room to keep it: each user has a share of what a replica keeps,
   * so that one user's cancellations cannot take another's room.
   */
  relayLater(id: string, userId: string, parsed: unknown): boolean;
  /**
   * A client's `logging/setLevel` request on the session, so that every replica serving it logs
   * to the client at that level: kept in the session's record (`settings`) and relayed to every
   * replica holding it, as answers are. Rejects while Redis is away (the level then holds where
   * it was set). `messages` are those of a POST the session's transport accepted (its headers,
   * each message well formed), before the server has them: one refused is never shared. Only a
   * request naming a level MCP defines counts (the last, in a batch); the server refuses any other.
   */
  shareLogLevel(id: string, messages: unknown[]): Promise<void>;
  /**
   * Calls `handler` with each answer relayed for a session; after this replica's subscription
   * was down a moment, also those relayed meanwhile for the sessions `held` names (its own).
   */
  onAnswers(handler: (id: string, messages: unknown[]) => void, held?: () => Iterable<string>): Promise<void>;
}

/**
 * The small key-value store write safety needs (previews, idempotency keys): values that
 * expire, and a claim that exactly one caller wins. One implementation per place tokens live:
 * memory, the encrypted file, Redis (shared by replicas).
 */
export interface ExpiringRecords {
  /**
   * Stores `value` unless `key` holds one; true when this call stored it (the claim is won). A
   * shared store answers true too where `key` holds this very `value` (its client sent the claim
   * again after the answer was lost): each claimer's value is its own.
   * `owner` is the user the record is kept for: a store with bounds of its own (memory, the
   * file) lets no one user take more than a share of them.
   */
  add(key: string, value: string, ttlMs: number, owner?: RecordOwner): Promise<boolean>;
  get(key: string): Promise<string | undefined>;
  put(key: string, value: string, ttlMs: number, owner?: RecordOwner): Promise<void>;
  /** Deletes `key` if it still holds `value` (a claim released only by its holder). */
  removeIf(key: string, value: string): Promise<void>;
  /**
   * `removeIf` once the store answers again, for a store that can be away (Redis): what a
   * caller let go of while it was must not stay and refuse the retries.
   */
  removeWhenBack?(key: string, value: string, ttlMs: number): void;
  /**
   * Extends `key`'s life if it still holds `value`; false when it does not (expired, taken).
   * Only stores other processes share implement it: their claims are leases their holder
   * renews while alive, so that a holder that dies frees them within seconds.
   */
  renewIf?(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** Writes anything pending (the file store); the others have nothing to flush. */
  flush?(): Promise<void>;
  /**
   * The same records, each user's keys and values kept to `maxBytes` (the shared store's bound,
   * tools.writeRecordBytesPerUser); memory and the file bound theirs by their own share.
   */
  perUserBytes?(maxBytes: number): ExpiringRecords;
}

/** Whose record it is; one written after its request was sent (an outcome) is never refused for their share. */
export interface RecordOwner {
  userId: string;
  afterSend?: boolean;
}

/**
 * A bound per user on records that expire (previews, stored idempotency outcomes): one user
 * filling the host's records (memory, the file, Redis) cannot crowd out the others. Each
 * record takes a place named by its id among its user's places of one kind.
 */
export interface PerUserPlaces {
  /**
   * Takes place `id` among `userId`'s `kind` until `ttlMs` from now; false when the user has
   * `max` live places of that kind already. Taking a place held already renews it.
   */
  take(kind: string, userId: string, id: string, max: number, ttlMs: number): Promise<boolean>;
  /** Gives place `id` back (its record was not kept after all). */
  giveBack(kind: string, userId: string, id: string): Promise<void>;
  /** Where the bound holds, for the refusal: "on this host", "across the replicas". */
  readonly scope: string;
}

/**
 * Mutual exclusion of token refreshes across host replicas (a Redis lock in the shared
 * store). Rotating refresh tokens are single-use: two replicas refreshing at once would have
 * one of them fail and, worse, treat the failure as a revoked grant.
 */
export interface RefreshLock {
  /** How long a held lock lasts if its holder never releases it (a replica that died). */
  readonly ttlMs: number;
  /**
   * The release function when acquired (the lock is kept alive until then), undefined when
   * another replica holds the lock. Released with `failed`, the lock is held a moment longer
   * and marked so: the replicas waiting on it give up instead of sending the refresh token
   * the failed request may have used.
   */
  acquire(providerId: string, userId: string): Promise<RefreshLockRelease | undefined>;
  /** Whether the last holder's refresh failed a moment ago (see `acquire`). */
  recentlyFailed?(providerId: string, userId: string): Promise<boolean>;
}

/**
 * Lets a held refresh lock go. `held`, where the lock can tell, answers whether it is still
 * this holder's: false once another took it over, this holder having stood still past `ttlMs`
 * (a long pause), so that it sends no refresh token its successor may be sending.
 */
export type RefreshLockRelease = ((outcome?: { failed?: boolean }) => Promise<void>) & {
  held?: () => boolean;
};

/** Where a provider's flows wait and how their completion is told: one process, or Redis. */
export interface AuthorizationFlows {
  pending: PendingAuthorizationStore;
  signals: AuthorizationSignals;
}

export interface PendingAuthorization {
  userId: string;
  codeVerifier: string;
  scopes: string[];
  /**
   * Names the flow in the link the user opens on the host; the `state` itself travels only to
   * the authorization server and back, after the host has bound a browser to the flow.
   */
  flowId: string;
  /** The authorization server's URL that the host's start step redirects to. */
  authorizeUrl: string;
  /** Set once a browser has been bound to the flow. */
  opened: boolean;
  expiresAt: number;
}

export type NewAuthorization = Omit<PendingAuthorization, 'expiresAt' | 'opened'>;

/**
 * Where authorization requests wait for their callback, keyed by `state` and found by flow
 * id: this process's memory, or Redis shared by replicas (redis-pending-authorizations.ts),
 * where the link handed out by one replica may be opened, and its callback land, on any other.
 * Answers may be immediate (memory) or not (Redis); callers await them either way.
 */
export interface PendingAuthorizationStore {
  add(state: string, entry: NewAuthorization): void | Promise<void>;
  /** The unexpired entry for `state`, left in place. */
  get(state: string): PendingAuthorization | undefined | Promise<PendingAuthorization | undefined>;
  /** The unexpired entry a flow id names, with its state. */
  byFlow(
    flowId: string,
  ):
    | { state: string; entry: PendingAuthorization }
    | undefined
    | Promise<{ state: string; entry: PendingAuthorization } | undefined>;
  /** Records that a browser has been bound to the flow. */
  markOpened(flowId: string): void | Promise<void>;
  /** Removes and returns the entry for `state`, once: a second take finds nothing. */
  take(state: string): PendingAuthorization | undefined | Promise<PendingAuthorization | undefined>;
}

/**
 * Who waits for which authorization flow to complete (an MCP session that told its client to
 * authorize, by URL elicitation). In one process the completion is told directly; with
 * replicas it travels over Redis pub/sub (redis-authorization-signals.ts), since the
 * callback may land on any replica and the waiting client be connected to another.
 */
export interface AuthorizationSignals {
  /**
   * Calls `callback` once if the flow completes (on any replica) within a pending flow's life.
   * `owner` (a provider's user) bounds how many each keeps waiting (see FlowWaiters).
   */
  whenAuthorized(flowId: string, callback: () => void, owner: string): void;
  /** Tells every waiter of the flow, wherever it waits, that it completed. */
  authorized(flowId: string): Promise<void>;
  close?(): Promise<void>;
}

/** One sealed value: AES-256-GCM's nonce, authentication tag and ciphertext, base64. */
export interface Sealed {
  iv: string;
  tag: string;
  data: string;
}

/** The host's log lines (pino's logger fits). */
export interface StoreLogger {
  debug(message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** The host's encryption of values at rest (its TokenCipher), keyed by a secret and a salt. */
export interface ValueCipher {
  readonly salt: Buffer;
  derive(purpose: string): Buffer;
  seal(value: unknown, boundTo?: string): Sealed;
  open(sealed: Sealed, boundTo?: string): unknown;
}

/** Makes the host's cipher for a secret and a salt (a random one when absent). */
export type CipherClass = new (secret: string, salt?: Buffer) => ValueCipher;

/** This process's waiters for authorization flows (the host's LocalWaiters). */
export interface FlowWaiters {
  /** Adds the flow's waiter; an owner's oldest makes room for their newest beyond their bound. */
  add(flowId: string, callback: () => void, owner: string): void;
  fire(flowId: string): void;
}

/** How long a pending authorization lives, and how many one user may have per provider. */
export interface PendingBounds {
  ttlMs: number;
  maxPerUser: number;
}

/** The host config's `store` section (see the host's config reference). */
export interface StoreSettings {
  connectTimeoutMs?: number;
  commandTimeoutMs?: number;
  replicaAcks?: number;
  replicaAckTimeoutMs?: number;
  sentinels?: string[];
  sentinelName?: string;
  cluster?: string[];
  keyPrefix?: string;
}

/** What the host lends its shared store. */
export interface HostParts {
  Cipher: CipherClass;
  Waiters: new () => FlowWaiters;
  pendingBounds: PendingBounds;
  logger?: StoreLogger;
}
