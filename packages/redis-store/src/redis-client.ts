import { ToolError } from '@toolhost/core';
import type { Cluster, ClusterOptions, Redis, RedisOptions as RedisClientOptions } from 'ioredis';
import { DROPPED_FROZEN, endDroppedOnReconnect } from './frozen-connection.js';
import type { StoreLogger } from './ports.js';
import { redactRedisUrl } from './redis-url.js';

/**
 * A connection to the shared store: one Redis (standalone, or the master Sentinel names), or a
 * Redis Cluster. Both take the same commands; a cluster needs the keys of one command, MULTI or
 * script in one hash slot (the stores tag them), and a SCAN of every master (see `mastersOf`).
 */
export type SharedRedis = Redis | Cluster;

/** The connections that hold keys: every master of a cluster, else the one connection. */
export function mastersOf(redis: SharedRedis): Redis[] {
  return redis.isCluster ? (redis as Cluster).nodes('master') : [redis as Redis];
}

export class SharedStoreStartError extends Error {
  override readonly name = 'SharedStoreStartError';
}

/** The host's errors' marker (its HostError), the same in every copy of it. */
const HOST_ERROR = Symbol.for('toolhost.host.error');

/**
 * The host's TokenStoreError (its code and marker, so that the host's `TokenStoreError.isInstance`
 * knows it): tokens or their salt in Redis that this host cannot use.
 */
export class TokenStoreError extends Error {
  readonly [HOST_ERROR] = true;
  readonly code = 'token_store_invalid' as const;
  override readonly name = 'TokenStoreError';
}

/** The shared store's answer to any call it cannot serve while Redis is away. */
export function storeUnavailable(): ToolError {
  return new ToolError({
    code: 'store_unavailable',
    retryable: true,
    message: 'The shared token store (Redis) is unreachable; try again shortly.',
  });
}

/** Runs a Redis command; an unreachable Redis becomes `store_unavailable`, never an empty answer. */
export async function inRedis<T>(command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch {
    throw storeUnavailable();
  }
}

/**
 * Runs a MULTI, answering each command's result. A command Redis refuses when EXEC runs it
 * (its ACL tightened since it was queued, a value out of range) is no rejection in ioredis but
 * an error in EXEC's answer, the other commands applied: any such error, as a transaction not
 * run, is `store_unavailable`, else a write stored nowhere would pass for done.
 */
export async function execAll(multi: ReturnType<SharedRedis['multi']>): Promise<unknown[]> {
  const answers = await inRedis(() => multi.exec());
  if (!answers || answers.some(([error]) => error)) throw storeUnavailable();
  return answers.map(([, result]) => result);
}

/**
 * Runs `attempt` until it succeeds or `forMs` pass: at once each time the connection is ready
 * again, else every `everyMs`. For what must reach Redis once it answers (a claim given back, a
 * session's end): the commands of calls made after the reconnection are sent after it, on the
 * same connection, so none of them meets what it undoes.
 */
export async function onceRedisAnswers(
  redis: SharedRedis,
  attempt: () => Promise<unknown>,
  forMs: number,
  everyMs = 500,
): Promise<void> {
  for (const until = Date.now() + forMs; Date.now() < until; ) {
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, everyMs);
      timer.unref();
      redis.once('ready', done);
    });
    if (
      await attempt().then(
        () => true,
        () => false,
      )
    )
      return;
  }
}

/** How many replicas must hold a write that has to survive a failover, and how long to wait for them. */
export interface Durability {
  replicaAcks: number;
  timeoutMs: number;
}

export const NO_WAIT: Durability = { replicaAcks: 0, timeoutMs: 0 };

type Pipeline = ReturnType<SharedRedis['pipeline']>;

/**
 * Runs the commands `write` queues (all on one key's node), then, where `durability` asks for
 * replicas, `WAIT`s on the same connection until that many hold them. Redis acknowledges a
 * write once its master has it; a failover before a replica copies it (the replication window,
 * normally milliseconds) loses it. A write short of its replicas is reported as not written
 * (`store_unavailable`): the caller keeps what it wrote and writes it again, or sends nothing.
 * Answers the results of the queued commands.
 */
export async function writeDurably(
  redis: SharedRedis,
  write: (pipeline: Pipeline) => void,
  durability: Durability,
): Promise<unknown[]> {
  for (let attempt = 1; ; attempt += 1) {
    const pipeline = redis.pipeline();
    write(pipeline);
    const queued = pipeline.length;
    if (durability.replicaAcks > 0) pipeline.wait(durability.replicaAcks, durability.timeoutMs);
    const results = await inRedis(async () => (await pipeline.exec()) ?? []);
    if (attempt < SLOT_MOVES && redis.isCluster && results.some(([error]) => isMoved(error))) {
      await refreshSlots(redis as Cluster);
      continue;
    }
    for (const [error] of results) if (error) throw storeUnavailable();
    if (durability.replicaAcks > 0 && Number(results[queued]?.[1]) < durability.replicaAcks)
      throw new ToolError({
        code: 'store_unavailable',
        retryable: true,
        message: `The shared store (Redis) did not copy a write to ${durability.replicaAcks} replica${durability.replicaAcks === 1 ? '' : 's'} within ${durability.timeoutMs} ms (store.replicaAcks), so a failover could lose it; try again shortly.`,
      });
    return results.slice(0, queued).map(([, value]) => value);
  }
}

/** How many times a cluster's write is sent to where its slot moved before it counts as not written. */
const SLOT_MOVES = 3;

const isMoved = (error: Error | null) => error?.message.startsWith('MOVED ') === true;

/**
 * A Cluster's slot map read again from its nodes. ioredis follows a pipeline's MOVED only when
 * every reply is that same error; the WAIT after a write answers otherwise (a replica refuses
 * WAIT), so after a failover that left the old master at its address as a replica, every durable
 * write would go there, and be refused, until some other command refreshed the map.
 */
function refreshSlots(cluster: Cluster): Promise<void> {
  // An error leaves the map as it was; the next attempt then reports the write as not written.
  return new Promise((resolve) => cluster.refreshSlotsCache(() => resolve()));
}

export interface RedisOptions {
  /** How long connecting may take, at start and on each reconnect. */
  connectTimeoutMs?: number;
  /** How long one command may take before the call answers `store_unavailable`. */
  commandTimeoutMs?: number;
  /** Put before every key (ioredis adds it to keys; channels and SCAN patterns add it themselves). */
  keyPrefix?: string;
  /** Redis Sentinel: `host:port` of each Sentinel; the URL then gives credentials, database and TLS. */
  sentinels?: readonly string[];
  /** With `sentinels`: the master group's name. */
  sentinelName?: string;
  /** Redis Cluster: `host:port` of some of its nodes; the URL then gives credentials and TLS. */
  cluster?: readonly string[];
}

const hostPort = (node: string) => {
  const at = node.lastIndexOf(':');
  return { host: node.slice(0, at), port: Number(node.slice(at + 1)) };
};

/** The URL's credentials and TLS, for the connections to a cluster's nodes. */
function clusterNodeOptions(url: string): NonNullable<ClusterOptions['redisOptions']> {
  const u = new URL(url);
  // A cluster has database 0 only: a URL naming another would silently share keys with it.
  if (u.pathname.length > 1 && u.pathname !== '/0')
    throw new SharedStoreStartError(
      `store.cluster is set but the Redis URL names database ${u.pathname.slice(1)}: a Redis Cluster has database 0 only; remove it from the URL.`,
    );
  return {
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/** Where to connect: the URL itself, or the master Sentinels name (with the URL's credentials). */
function connectionOf(url: string, options: RedisOptions): [string] | [RedisClientOptions] {
  if (!options.sentinels?.length) return [url];
  const u = new URL(url);
  return [
    {
      sentinels: options.sentinels.map(hostPort),
      name: options.sentinelName ?? 'mymaster',
      ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
      ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
      ...(u.pathname.length > 1 ? { db: Number(u.pathname.slice(1)) } : {}),
      ...(u.protocol === 'rediss:' ? { tls: {}, enableTLSForSentinelMode: true } : {}),
    },
  ];
}

/**
 * What went wrong at the first connection, in an operator's words: ioredis reports most of
 * these as "Connection is closed." once it gives up, and the cause is only in its `error` events.
 */
export function describeConnectFailure(
  errors: readonly Error[],
  last: unknown,
  tls = false,
  cluster = false,
): string {
  const all = [...errors, ...(last instanceof Error ? [last] : [])];
  const text = all.map((e) => `${(e as NodeJS.ErrnoException).code ?? ''} ${e.message}`).join(' | ');
  if (/WRONGPASS|invalid username-password|NOAUTH|NOPERM/i.test(text))
    return 'Redis refused the credentials (wrong password or user in the URL, or none given where one is required)';
  if (/ECONNREFUSED/.test(text)) return 'connection refused (is Redis running, on this host and port?)';
  if (/ENOTFOUND|EAI_AGAIN/.test(text)) return 'host name not found';
  if (/certificate|CERT_|SSL|TLS|EPROTO|wrong version number|handshake/i.test(text))
    return `TLS failed (${all.at(-1)?.message ?? 'handshake'}): use rediss:// only where Redis serves TLS, and check its certificate`;
  if (/ETIMEDOUT|timed? ?out/i.test(text))
    return tls
      ? 'connection timed out during the TLS handshake (is this Redis serving TLS? use redis:// where it does not)'
      : 'connection timed out';
  // A cluster's nodes hide the socket's error: all that is left is that none answered.
  if (cluster && /Connection is closed|None of startup nodes/i.test(text))
    return 'no node answered (are they running on these hosts and ports, with cluster-enabled yes, and reachable from here?)';
  if (/ECONNRESET|Connection is closed/i.test(text))
    return 'Redis closed the connection (a TLS server reached with redis://, or a proxy that refused it?)';
  return all.at(-1)?.message ?? 'unknown error';
}

/**
 * A connection error as the log says it: the client library's "All sentinels are unreachable"
 * also covers Sentinels that all answered, but named no master yet (a failover under way), and
 * an operator who reads it checks the wrong thing.
 */
export function describeRedisError(message: string, sentinelName = 'mymaster'): string {
  if (!message.startsWith('All sentinels are unreachable')) return message;
  const last = /Last error: (.*)$/s.exec(message)?.[1] ?? '';
  if (/successfully, but got an invalid reply/.test(last))
    return `the Sentinels answer, but name no master '${sentinelName}' yet (a failover under way?); retrying`;
  return `no Sentinel answered${last ? ` (last: ${last})` : ''}; retrying`;
}

/** The classes `connectRedis` takes from the dynamically imported client library. */
type IoRedis = { Redis: typeof Redis; Cluster: typeof Cluster };

/** The client for `url` and `options`, not connected yet; the first connection does not retry. */
function createClient(ioredis: IoRedis, url: string, options: RedisOptions): SharedRedis {
  const { Redis, Cluster } = ioredis;
  const [target] = connectionOf(url, options);
  const settings: RedisClientOptions = {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: options.connectTimeoutMs ?? 5000,
    // A Redis that hangs (overloaded, paused) must not hang calls: they answer
    // store_unavailable instead.
    commandTimeout: options.commandTimeoutMs ?? 5000,
    ...(options.keyPrefix ? { keyPrefix: options.keyPrefix } : {}),
    // The first connection must not retry: start-up reports the failure instead.
    retryStrategy: () => null,
    sentinelRetryStrategy: () => null,
  };
  if (options.cluster?.length)
    return new Cluster(options.cluster.map(hostPort), {
      lazyConnect: true,
      enableOfflineQueue: false,
      ...(options.keyPrefix ? { keyPrefix: options.keyPrefix } : {}),
      // Each node's connection: the URL's credentials and TLS, the same timeouts.
      redisOptions: {
        ...clusterNodeOptions(url),
        maxRetriesPerRequest: 1,
        connectTimeout: settings.connectTimeout,
        commandTimeout: settings.commandTimeout,
      },
      clusterRetryStrategy: () => null,
    });
  return typeof target === 'string' ? new Redis(target, settings) : new Redis({ ...target, ...settings });
}

/**
 * Keeps the errors of the first connection (for the start-up message) and, once `started()`,
 * logs one line per outage and one when Redis answers again.
 */
function watchConnection(client: SharedRedis, shown: string, options: RedisOptions, logger?: StoreLogger) {
  let lastError: string | undefined;
  const startErrors: Error[] = [];
  let started = false;
  // Dropped as frozen (StoreHealth): the probe told the outage and tells its end; the errors
  // of reconnecting to a Redis still frozen would tell it again.
  let toldByProbe = false;
  client.on(DROPPED_FROZEN, () => {
    toldByProbe = true;
  });
  client.on('error', (e: Error) => {
    if (!started) {
      startErrors.push(e);
      return;
    }
    if (toldByProbe) return;
    // One line per outage, not per reconnect attempt.
    if (lastError === e.message) return;
    lastError = e.message;
    logger?.warn(
      { redis: shown, err: describeRedisError(e.message, options.sentinelName) },
      'shared store (Redis) unreachable',
    );
  });
  // A cluster reports a node's refusal (a wrong password) as a `node error`, and at the end
  // only that no node answered.
  client.on('node error', (e: Error) => {
    if (!started) startErrors.push(e);
  });
  client.on('ready', () => {
    toldByProbe = false;
    if (lastError !== undefined) logger?.info({ redis: shown }, 'shared store (Redis) reachable again');
    lastError = undefined;
  });
  return {
    startErrors,
    started() {
      started = true;
    },
  };
}

/** Why start-up stops: where the store was looked for and what went wrong, in an operator's words. */
function unreachableAtStart(url: string, options: RedisOptions, errors: readonly Error[], last: unknown) {
  const shown = redactRedisUrl(url);
  const cluster = Boolean(options.cluster?.length);
  const where = options.sentinels?.length
    ? `${shown} (master '${options.sentinelName ?? 'mymaster'}' of the Sentinels ${options.sentinels.join(', ')})`
    : cluster
      ? `the Redis Cluster of ${options.cluster!.join(', ')}`
      : shown;
  return new SharedStoreStartError(
    `Cannot reach the shared store at ${where}: ${describeConnectFailure(errors, last, url.startsWith('rediss:'), cluster)}. Start Redis, or unset TOOLHOST_REDIS_URL / store.redisUrl${cluster ? ' / store.cluster' : ''} to run a single host with its own store.`,
  );
}

/** Once serving, reconnect for as long as it takes, backing off up to 2 s between attempts. */
function keepReconnecting(client: SharedRedis): void {
  const backOff = (attempt: number) => Math.min(attempt * 100, 2000);
  if (client.isCluster) (client as Cluster).options.clusterRetryStrategy = backOff;
  else {
    (client as Redis).options.retryStrategy = backOff;
    (client as Redis).options.sentinelRetryStrategy = backOff;
  }
}

/**
 * Connects to Redis (redis:// or rediss:// for TLS) and waits until it answers, so that a
 * host that cannot reach its shared store refuses to start rather than serve without it.
 * Commands issued while the connection is down fail at once instead of queueing: a call then
 * answers `store_unavailable` quickly, and the client keeps reconnecting in the background.
 */
export async function connectRedis(
  url: string,
  logger?: StoreLogger,
  options: RedisOptions = {},
): Promise<SharedRedis> {
  if (options.cluster?.length && options.sentinels?.length)
    throw new SharedStoreStartError(
      'store.cluster and store.sentinels are both set: a shared store is either a Redis Cluster or found through Sentinels; keep one.',
    );
  // Loaded here, when a shared store is configured: a host without one never pays for it.
  const client = createClient(await import('ioredis'), url, options);
  const connection = watchConnection(client, redactRedisUrl(url), options, logger);
  try {
    await client.connect();
    await client.ping();
  } catch (e) {
    client.disconnect();
    throw unreachableAtStart(url, options, connection.startErrors, e);
  }
  connection.started();
  keepReconnecting(client);
  if (!client.isCluster) endDroppedOnReconnect(client as Redis);
  return client;
}
