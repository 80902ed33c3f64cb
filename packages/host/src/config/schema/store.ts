/** `store`: state shared by host replicas (Redis). */
export const storeSection = {
  type: 'object',
  additionalProperties: false,
  description: 'State shared by several host replicas behind a load balancer.',
  properties: {
    redisUrl: {
      type: 'string',
      pattern: '^rediss?://',
      description:
        'Redis (`redis://`, or `rediss://` for TLS) for OAuth tokens, the one-refresh-at-a-time lock and pacing; needs TOOLHOST_TOKEN_KEY. Unset, each host keeps its own.',
      'x-env': 'TOOLHOST_REDIS_URL',
    },
    connectTimeoutMs: {
      type: 'integer',
      minimum: 100,
      maximum: 60000,
      description: 'How long connecting to Redis may take (at start and on each reconnect), in ms.',
      default: 5000,
    },
    commandTimeoutMs: {
      type: 'integer',
      minimum: 50,
      maximum: 60000,
      description: 'How long one Redis command may take before the call answers `store_unavailable`, in ms.',
      default: 5000,
    },
    replicaAcks: {
      type: 'integer',
      minimum: 0,
      maximum: 16,
      description:
        "Redis replicas that must hold a write that has to survive a failover (a rotated token, a deleted one, an idempotency key's attempt and outcome, an applied preview, and the own authorization server's registrations, codes, refresh tokens and revocations) before the host relies on it (`WAIT`); one that misses it is kept and written again, and a write is not sent until its attempt is held. Default 1 with `store.sentinels`, else 0 (set 1 for a Cluster with replicas). 0: no wait; a failover in the replication window (normally milliseconds) can then lose such writes.",
    },
    replicaAckTimeoutMs: {
      type: 'integer',
      minimum: 10,
      maximum: 60000,
      description:
        'How long a write waits for `store.replicaAcks` replicas, in ms; short of them, it counts as not written (retryable `store_unavailable`, or written again in the background).',
      default: 1000,
    },
    sentinels: {
      type: 'array',
      items: { type: 'string', pattern: '^[^\\s:]+:[0-9]{1,5}$' },
      minItems: 1,
      description:
        'Redis Sentinel: `host:port` of each Sentinel. The host asks them for the master of `sentinelName` and follows failovers; `redisUrl` then gives only the credentials, database and TLS.',
    },
    sentinelName: {
      type: 'string',
      minLength: 1,
      description: 'With `sentinels`: the name of the master group the Sentinels monitor.',
      default: 'mymaster',
    },
    cluster: {
      type: 'array',
      items: { type: 'string', pattern: '^[^\\s:]+:[0-9]{1,5}$' },
      minItems: 1,
      description:
        'Redis Cluster: `host:port` of some of its nodes (the host learns the rest from them and follows resharding and failovers); `redisUrl` (optional then) gives only the credentials and TLS (database 0). Not with `sentinels`.',
    },
    keyPrefix: {
      type: 'string',
      pattern: '^[A-Za-z0-9_.:-]{0,64}$',
      description:
        'Put before every Redis key and channel (e.g. `staging:`), so that several deployments can share one Redis; the same on every replica of one.',
      default: '',
    },
  },
} as const;
