import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { RedisChannels } from './redis-channels.js';
import type { SharedRedis } from './redis-client.js';
import { RedisSessions } from './redis-sessions.js';

/**
 * A commands connection that, like the store's (no offline queue), refuses commands until it
 * is ready, holding a completion notice and a relayed answer for session `s1`, and no record
 * for session `s2`.
 */
class CommandsConnection extends EventEmitter {
  status = 'reconnecting';
  readonly isCluster = false;
  readonly sent: string[] = [];
  private refuseUnlessReady(command: string): void {
    this.sent.push(command);
    if (this.status !== 'ready')
      throw new Error("Stream isn't writeable and enableOfflineQueue options is false");
  }
  async lrange(key: string): Promise<string[]> {
    this.refuseUnlessReady(`LRANGE ${key}`);
    if (key === 'toolhost:session:notices:s1') return ['flow-1'];
    if (key === 'toolhost:session:answers:s1')
      return [JSON.stringify({ id: 's1', relay: 'r1', messages: [{ jsonrpc: '2.0', id: 0, result: {} }] })];
    return [];
  }
  pipeline() {
    const keys: string[] = [];
    const pipeline = {
      exists: (key: string) => {
        keys.push(key);
        return pipeline;
      },
      exec: async () => {
        this.refuseUnlessReady(`EXISTS ${keys.join(' ')}`);
        return keys.map((k) => [null, k.endsWith(':s2') ? 0 : 1]);
      },
    };
    return pipeline;
  }
  ready(): void {
    this.status = 'ready';
    this.emit('ready');
  }
}

function store() {
  const redis = new CommandsConnection();
  const resubscribed: (() => void)[] = [];
  const channels = {
    listen: async () => {},
    onResubscribed: (listener: () => void) => resubscribed.push(listener),
  };
  const sessions = new RedisSessions(
    redis as unknown as SharedRedis,
    channels as unknown as RedisChannels,
    60_000,
  );
  return {
    redis,
    sessions,
    heardAgain: () => {
      for (const listener of resubscribed) listener();
    },
  };
}

describe('RedisSessions after its subscriber reconnects', () => {
  it('reads back what it missed only once the commands connection is ready, as after a failover', async () => {
    const { redis, sessions, heardAgain } = store();
    const ended: string[] = [];
    const notices: string[] = [];
    const answers: string[] = [];
    await sessions.onClosed(
      (id) => ended.push(id),
      () => ['s1', 's2'],
    );
    await sessions.onCompletion(
      (id, flow) => notices.push(`${id}:${flow}`),
      () => ['s1'],
    );
    await sessions.onAnswers(
      (id) => answers.push(id),
      () => ['s1'],
    );

    // The subscriber is back first: nothing is asked of a connection that would refuse it.
    heardAgain();
    await new Promise((r) => setTimeout(r, 10));
    expect(redis.sent).toEqual([]);

    redis.ready();
    await new Promise((r) => setTimeout(r, 10));
    expect(ended).toEqual(['s2']);
    expect(notices).toEqual(['s1:flow-1']);
    expect(answers).toEqual(['s1']);
  });

  it('reads back at once where the commands connection stayed up', async () => {
    const { redis, sessions, heardAgain } = store();
    redis.ready();
    const notices: string[] = [];
    await sessions.onCompletion(
      (id, flow) => notices.push(`${id}:${flow}`),
      () => ['s1'],
    );
    heardAgain();
    await new Promise((r) => setTimeout(r, 10));
    expect(notices).toEqual(['s1:flow-1']);
  });
});
