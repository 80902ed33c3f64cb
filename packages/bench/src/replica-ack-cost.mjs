// What waiting for a replica costs the writes that must survive a failover (store.replicaAcks,
// docs/replicas.md): a rotated token written to Redis with no wait (0) and with one replica's
// acknowledgement (1, `WAIT 1`), against a master and its replica on loopback, in alternating
// rounds at concurrency 1. An idempotency key's claim, attempt and outcome are three such
// writes; an applied preview's mark is one. Prints a table; `pnpm -F @toolhost/bench
// bench:replica-acks`.
import { execFileSync } from 'node:child_process';
import { load, round, summarize } from './measure.mjs';
import { startRedis } from './redis-server.mjs';

const ROUNDS = 5;
const PER_ROUND = 400;

const master = await startRedis(['--appendonly', 'yes']);
if (!master) {
  console.log('redis-server is not installed: nothing measured');
  process.exit(0);
}
const replica = /** @type {NonNullable<typeof master>} */ (
  await startRedis(['--replicaof', '127.0.0.1', String(master.port)])
);
const linked = () =>
  execFileSync('redis-cli', ['-p', String(replica.port), 'info', 'replication'], {
    encoding: 'utf8',
  }).includes('master_link_status:up');
while (!linked()) await new Promise((r) => setTimeout(r, 50));

const { createHost, HostServices, resolveService } = await import('@toolhost/host');
// The host's container is not public API (no serving layer may reach it); the bench inspects
// the composed host as the host's own tests do, through the built module that keeps it.
const { containerOf } = await import('../../host/dist/host.js');
/** @param {number} replicaAcks */
const host = (replicaAcks) =>
  createHost(
    { store: { redisUrl: master.url, replicaAcks }, toolSets: {} },
    { env: { TOOLHOST_TOKEN_KEY: 'bench-token-encryption-key' } },
  );
const hosts = { 0: await host(0), 1: await host(1) };
const token = {
  accessToken: 'bench-rotated-access-token',
  refreshToken: 'bench-rotated-refresh-token',
  expiresAt: Date.now() + 3_600_000,
  scopes: ['crm.objects.contacts.read'],
};
/** @type {Record<string, import('./measure.mjs').Samples[]>} */
const samples = { 0: [], 1: [] };
try {
  for (let r = 0; r < ROUNDS; r += 1)
    for (const acks of /** @type {const} */ ([0, 1])) {
      const store = resolveService(containerOf(hosts[acks]), HostServices.tokenStore);
      let n = 0;
      samples[acks]?.push(
        await load(() => store.set('bench-provider', `user-${acks}-${n++}`, token), {
          total: PER_ROUND,
          concurrency: 1,
        }),
      );
    }
  const none = summarize(1, samples[0] ?? []);
  const one = summarize(1, samples[1] ?? []);
  console.log('| store.replicaAcks | writes | p50 ms | p99 ms | writes/s |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const [acks, s] of /** @type {const} */ ([
    [0, none],
    [1, one],
  ]))
    console.log(`| ${acks} | ${s.calls} | ${s.p50} | ${s.p99} | ${s.callsPerSecond} |`);
  console.log(
    `\nWAIT 1 adds ${round((one.p50 ?? Number.NaN) - (none.p50 ?? Number.NaN))} ms (p50) to each such write.`,
  );
} finally {
  await hosts[0].close();
  await hosts[1].close();
  replica.close();
  master.close();
}
