import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSharedStore, type SharedStore } from '../src/store/shared-store.js';
import { closeClient, type RedisServer, redisClient, startRedisServer } from './redis-server.js';

// The replicas' pub/sub connection (RedisChannels) across its reconnections: it hears its
// channels again once Redis is back, and a host that stops while it reconnects (Redis just
// back, the connection's ready check on its way) leaves no rejection behind. ioredis's own
// re-subscription sent its SUBSCRIBE with nothing awaiting it: closed there, the connection
// rejected it "Connection is closed.", unhandled, and a test run that saw it failed.

/**
 * A loopback link to Redis that the test cuts, and that can hold back Redis's answer to a new
 * connection's ready check (INFO) until the client has ended its side: the client closes while
 * its connection is being set up, then reads that answer before the socket closes.
 */
interface Link {
  url: string;
  /** Cuts the connections that subscribed (the subscriber's, not the main one). */
  cutSubscribers(): void;
  /** From now on, new connections get their INFO answer only once the client has ended its side. */
  holdReadyCheck(): void;
  /** Resolves when a new connection's INFO answer is held. */
  held: Promise<void>;
  /** Resolves when that connection has closed. */
  heldClosed: Promise<void>;
  close(): Promise<void>;
}

async function redisLink(port: number): Promise<Link> {
  let holding = false;
  let onHeld: () => void = () => {};
  let onHeldClosed: () => void = () => {};
  const held = new Promise<void>((r) => (onHeld = r));
  const heldClosed = new Promise<void>((r) => (onHeldClosed = r));
  const subscribers = new Set<Socket>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const toRedis = connect(port, '127.0.0.1');
    sockets.add(client).add(toRedis);
    const hold = holding;
    let infoSent = false;
    const kept: Buffer[] = [];
    client.on('data', (d) => {
      if (/subscribe/i.test(d.toString())) subscribers.add(client);
      if (hold && /\r\ninfo\r\n/i.test(d.toString())) infoSent = true;
      toRedis.write(d);
    });
    toRedis.on('data', (d) => {
      if (!infoSent) return void client.write(d);
      kept.push(d);
      onHeld();
    });
    // The client ended its side: Redis's answers reach it, then the connection closes.
    client.on('end', () => {
      for (const d of kept) client.write(d);
      client.end();
      toRedis.end();
    });
    const end = () => {
      client.destroy();
      toRedis.destroy();
      if (infoSent) onHeldClosed();
    };
    client.on('close', end);
    toRedis.on('close', end);
    client.on('error', end);
    toRedis.on('error', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cutSubscribers() {
      for (const s of subscribers) s.destroy();
      subscribers.clear();
    },
    holdReadyCheck() {
      holding = true;
    },
    held,
    heldClosed,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

/** The shared store as a host opens it, on the link. */
async function storeOn(url: string): Promise<SharedStore> {
  const store = await openSharedStore(
    {},
    { TOOLHOST_REDIS_URL: url, TOOLHOST_TOKEN_KEY: 'token-encryption-key-for-channels' },
  );
  if (!store) throw new Error('no shared store opened');
  return store;
}

describe('shared store (Redis): the channels across reconnections', () => {
  let redis: RedisServer;
  let link: Link;
  const stores: SharedStore[] = [];
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis.close();
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await link.close();
  });

  it('hears its channels again once its connection is back', async () => {
    link = await redisLink(redis.port);
    const store = await storeOn(link.url);
    stores.push(store);
    const heard: string[] = [];
    await store.channels.listen('toolhost:test', (m) => heard.push(m));
    link.cutSubscribers();
    const publisher = redisClient(redis.url);
    try {
      const deadline = Date.now() + 10_000;
      while (!heard.includes('back') && Date.now() < deadline) {
        await publisher.publish('toolhost:test', 'back');
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await closeClient(publisher);
    }
    expect(heard).toContain('back');
  });

  it('leaves no rejection behind when closed while its connection is being set up again', async () => {
    link = await redisLink(redis.port);
    const store = await storeOn(link.url);
    stores.push(store);
    const unhandled: unknown[] = [];
    const note = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', note);
    try {
      link.holdReadyCheck();
      link.cutSubscribers();
      await link.held;
      // The host stops now: the subscriber is connected, its ready check answered only after
      // its QUIT (the connection not ready yet) has ended the socket.
      await store.close();
      await link.heldClosed;
      // Rejections are reported once the microtasks after the close have run.
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      process.off('unhandledRejection', note);
    }
    expect(unhandled.map((e) => (e instanceof Error ? e.message : String(e)))).toEqual([]);
  });
});
