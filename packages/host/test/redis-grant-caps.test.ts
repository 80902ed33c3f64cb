import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CodeRecord, type Grant, Grants } from '../../authorization-server/src/grants.js';
import { PersonBounds } from '../../authorization-server/src/person-bounds.js';
import { RedisStateStore } from '../../authorization-server/src/redis-state-store.js';
import { hashOf } from '../../authorization-server/src/secrets.js';
import { inRedis } from '../../redis-store/src/redis-client.js';
import { closeClient, type RedisServer, redisClient, startRedisServer } from './redis-server.js';

// The own authorization server's per-person bounds on the store replicas share: a person's
// newest 16 grants per client, whichever replica made them, each older one ended by one replica
// only; and their completed authorizations counted once across the fleet.

let redis: RedisServer;
const clients: Redis[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => closeClient(c)));
  await redis.close();
});

const record: CodeRecord = {
  clientId: 'client-1',
  redirectUri: 'http://127.0.0.1/callback',
  codeChallenge: 'c'.repeat(43),
  subject: 'alice',
  scopes: ['tools:read'],
  resource: 'https://tools.example.com/mcp',
};

/** A replica's store: its own connection, the fleet's key prefix. */
function storeOf(prefix: string) {
  const client = redisClient(redis.url);
  clients.push(client);
  return new RedisStateStore(
    { call: (command, ...args) => inRedis(() => client.call(command, ...args)) },
    prefix,
  );
}

/** Two replicas' grants on one Redis, and the grants each told it ended. */
function replicas(refreshSeconds = 3600) {
  const prefix = `grant-caps-${Math.random()}:`;
  const ended: Grant[] = [];
  const open = () =>
    new Grants(storeOf(prefix), { codeSeconds: 60, accessSeconds: 600, refreshSeconds }, (g) =>
      ended.push(g),
    );
  return { a: open(), b: open(), ended, prefix };
}

const exchanged = async (grants: Grants, code: string) => {
  const presented = await grants.presentCode(code);
  return presented && grants.start(presented, true);
};

async function sixteen(grants: Grants): Promise<string[]> {
  const ids = [];
  for (let i = 0; i < 16; i++) ids.push((await exchanged(grants, await grants.issueCode(record)))!.grant.id);
  return ids;
}

const listKey = (prefix: string) => `${prefix}grants-of:${hashOf(JSON.stringify(['alice', 'client-1']))}`;

async function listed(prefix: string): Promise<string[]> {
  const saved = await clients[0]!.get(listKey(prefix));
  return (JSON.parse(saved ?? '[]') as { id: string }[]).map((e) => e.id);
}

describe("a person's grants for a client on Redis, made on two replicas", () => {
  it('keep the newest 16: the 17th, exchanged on the other replica, ends the 1st then and once', async () => {
    const { a, b, ended, prefix } = replicas();
    const ids = await sixteen(a);
    const code = await a.issueCode(record);
    expect(await a.grant(ids[0]!)).toBeDefined();
    const newest = (await exchanged(b, code))!.grant.id;
    expect(await a.grant(ids[0]!)).toBeUndefined();
    expect(await a.grant(ids[1]!)).toBeDefined();
    expect(ended.map((g) => g.id)).toEqual([ids[0]]);
    expect(await listed(prefix)).toEqual([...ids.slice(1), newest]);
  });

  it('end each pushed out once where two replicas exchange new codes at once', async () => {
    const { a, b, ended, prefix } = replicas();
    const ids = await sixteen(a);
    const [one, two] = [await a.issueCode(record), await b.issueCode(record)];
    const answers = await Promise.all([exchanged(a, one), exchanged(b, two)]);
    expect(answers.every((x) => x !== undefined)).toBe(true);
    expect(ended.map((g) => g.id).sort()).toEqual([ids[0], ids[1]].sort());
    for (const id of ids.slice(2)) expect(await a.grant(id)).toBeDefined();
    expect(await listed(prefix)).toHaveLength(16);
  });

  it('end at most the 1st, once, where one code is presented to both at once', async () => {
    const { a, b, ended } = replicas();
    const ids = await sixteen(a);
    const code = await a.issueCode(record);
    const answers = await Promise.all([exchanged(a, code), exchanged(b, code)]);
    const won = answers.filter((x) => x !== undefined);
    expect(won).toHaveLength(1);
    // The other presentation, a replay, revoked what the first started; the 1st ended only where
    // that grant was found live as it settled, and the failed presentation ended nothing.
    expect(await a.grant(won[0]!.grant.id)).toBeUndefined();
    const first = await a.grant(ids[0]!);
    expect(ended.map((g) => g.id)).toEqual(first === undefined ? [ids[0]] : []);
    for (const id of ids.slice(1)) expect(await b.grant(id)).toBeDefined();
  });

  it('are listed for as long as the longest-lived of them, which a refresh moves on', async () => {
    // Grants that live 2 s unless refreshed.
    const { a, prefix } = replicas(2);
    const kept = (await exchanged(a, await a.issueCode(record)))!;
    const left = (await exchanged(a, await a.issueCode(record)))!;
    await new Promise((r) => setTimeout(r, 1_200));
    const presented = await a.presentRefresh(kept.refreshToken!, 'client-1');
    expect(await a.rotate(presented!)).toBeDefined();
    await new Promise((r) => setTimeout(r, 1_300));
    expect(await a.grant(left.grant.id)).toBeUndefined();
    expect(await listed(prefix)).toContain(kept.grant.id);
  });
});

describe("a person's completed authorizations counted on two replicas at once", () => {
  it('reach 60 an hour and no more', async () => {
    const prefix = `person-bounds-${Math.random()}:`;
    const [a, b] = [new PersonBounds(storeOf(prefix)), new PersonBounds(storeOf(prefix))];
    const counted = await Promise.all(
      Array.from({ length: 70 }, (_, i) => (i % 2 ? a : b).countAuthorization('alice')),
    );
    expect(counted.filter(Boolean)).toHaveLength(60);
    expect(await a.mayAuthorize('alice')).toBe(false);
    await b.uncount('alice');
    expect(await a.mayAuthorize('alice')).toBe(true);
  });
});
