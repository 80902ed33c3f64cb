/**
 * The port through which the transports (HTTP, stdio) and the MCP layer use what replicas share
 * (Redis): only what they use, never the store itself (its token store, cipher and client stay
 * with the host). Types only: store/shared-store.ts implements it (replicaPort).
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
  readonly redis: { call(command: string, ...args: (string | number)[]): Promise<unknown> };
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

/** Results shared by replicas (store/redis-results.ts). */
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
}

/**
 * MCP sessions (the legacy era over HTTP) shared by replicas, so that a client's requests may
 * land on any replica (store/redis-sessions.ts).
 */
export interface ReplicaSessions {
  save(id: string, record: SessionRecord): Promise<void>;
  find(id: string): Promise<SessionRecord | undefined>;
  /** Extends the session's life: it was used here. */
  touch(id: string): void;
  /** Ends the session on every replica. */
  remove(id: string): Promise<void>;
  onClosed(handler: (id: string) => void): Promise<void>;
  /** Tells the replica holding the client's event stream that a URL elicitation completed. */
  notifyCompletion(id: string, elicitationId: string): Promise<void>;
  onCompletion(handler: (id: string, elicitationId: string) => void): Promise<void>;
  /** The client's answers to a server's request, to every replica holding the session. */
  relayAnswers(id: string, messages: unknown[]): Promise<void>;
  onAnswers(handler: (id: string, messages: unknown[]) => void): Promise<void>;
}
