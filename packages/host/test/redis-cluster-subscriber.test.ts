import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisChannels } from '../../redis-store/src/redis-channels.js';
import { connectRedis, type SharedRedis } from '../../redis-store/src/redis-client.js';
import { RedisSessions } from '../../redis-store/src/redis-sessions.js';
import { type RedisCluster, redisCli, startRedisCluster } from './redis-server.js';

// A replica's pub/sub subscription through a real Redis Cluster of three masters with a replica
// each. ioredis holds it on one node of its choosing, a replica node as likely as a master: a
// node that hangs there (SIGSTOP) while every master answers must not leave the replica deaf to
// the answers and session ends other replicas publish.

let cluster: RedisCluster;

beforeAll(async () => {
  cluster = await startRedisCluster(3, { replicas: 1 });
}, 90_000);

afterAll(async () => {
  await cluster?.close();
});

interface Replica {
  redis: SharedRedis;
  channels: RedisChannels;
  sessions: RedisSessions;
  close(): Promise<void>;
}

async function openReplica(): Promise<Replica> {
  // Credentials and TLS only: the nodes come from the cluster option.
  const redis = await connectRedis('redis://127.0.0.1:1', undefined, {
    cluster: cluster.seeds,
    commandTimeoutMs: 1000,
  });
  const channels = await RedisChannels.open(redis);
  return {
    redis,
    channels,
    sessions: new RedisSessions(redis, channels, 600_000),
    async close() {
      await channels.close();
      redis.disconnect();
    },
  };
}

/** The port of the node the replica's subscription is on now. */
const subscribedPort = (r: Replica) =>
  (
    r.channels as unknown as {
      subscriber: { subscriber: { getInstance(): { options: { port: number } } | null } };
    }
  ).subscriber.subscriber.getInstance()?.options.port;

const roleOf = (port: number) => /role:(\w+)/.exec(redisCli(port, 'info', 'replication'))?.[1];

async function until(what: string, done: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('shared store (Redis Cluster): the subscription', () => {
  it('moves off a hung replica node and reads back what was published meanwhile', async () => {
    const opened: Replica[] = [];
    const paused: number[] = [];
    try {
      const other = await openReplica();
      opened.push(other);
      await other.sessions.save('s-ended', { userId: 'alice', owner: 'alice', initialize: {} });
      // Replicas until one subscribes on a replica node (ioredis picks a node at random).
      let asker: Replica | undefined;
      let handed: unknown[] = [];
      let ended: string[] = [];
      for (let tries = 0; tries < 30 && !asker; tries += 1) {
        const candidate = await openReplica();
        opened.push(candidate);
        const got: unknown[] = [];
        const gone: string[] = [];
        await candidate.sessions.onAnswers(
          (_id, messages) => got.push((messages[0] as { id: unknown }).id),
          () => ['s-asked'],
        );
        await candidate.sessions.onClosed(
          (id) => gone.push(id),
          () => ['s-ended'],
        );
        const port = subscribedPort(candidate);
        if (port !== undefined && roleOf(port) === 'slave') {
          asker = candidate;
          handed = got;
          ended = gone;
        } else await candidate.close();
      }
      if (!asker) throw new Error('no replica subscribed on a replica node in 30 tries');
      const relay = (id: string) =>
        other.sessions.relayAnswers('s-asked', 'alice', { jsonrpc: '2.0', id, result: { action: 'accept' } });
      await relay('before');
      await until('the answer relayed before the node hung', () => handed.includes('before'));

      const port = subscribedPort(asker)!;
      const node = cluster.nodes.find((n) => n.port === port)!;
      node.pause();
      paused.push(port);
      // Published while the subscription is still on the hung node: heard only by a read-back.
      await relay('while-deaf');
      await other.sessions.remove('s-ended');
      await until('the subscription on another node', () => subscribedPort(asker) !== port, 20_000);
      await until('the answer relayed while deaf, read back', () => handed.includes('while-deaf'), 20_000);
      await until("the session's end, read back", () => ended.includes('s-ended'), 20_000);
      await relay('after');
      await until('the answer relayed after the move', () => handed.includes('after'), 20_000);
      // All of it while the node still hangs: nothing waited for it to come back.
      expect(redisCli(cluster.nodes.find((n) => n.port !== port)!.port, 'cluster', 'info')).toContain(
        'cluster_state:ok',
      );
      expect(handed).toEqual(['before', 'while-deaf', 'after']);
    } finally {
      for (const port of paused) cluster.nodes.find((n) => n.port === port)!.resume();
      await Promise.all(opened.map((r) => r.close()));
    }
  }, 90_000);
});
