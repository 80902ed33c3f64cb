// The per-call cost of where OAuth tokens live: the same call, needing a stored (unexpired)
// OAuth token, through an embedded host whose token store is the encrypted file
// (TOOLHOST_TOKEN_KEY) and one whose store is Redis (TOOLHOST_REDIS_URL), in alternating
// rounds at concurrency 1. The token endpoint is never reached: the token is fresh.
// Then the idle call with pacing on (the tool set's default, HubSpot's 9 a second per
// connection): each call comes after its bucket went idle, through the file store's
// in-process pacer and through the shared pacer in Redis; a pacer should add nothing there.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { load, round, summarize } from './measure.mjs';
import { SCRATCH_DIR } from './processes.mjs';
import { startRedis } from './redis-server.mjs';

const TOOL = 'CrmEventsApi.RetrieveCustomEventDefinitions';
const PROVIDER = 'crm-auth-provider';
const USER = 'bench-user';

/**
 * An embedded host with an OAuth provider for the tool and a stored token for USER.
 * @param {string} upstream
 * @param {Record<string, string>} env
 * @param {boolean} [pacing] the tool set's default pacing (else none)
 */
async function oauthHost(upstream, env, pacing = false) {
  const { createHost, HostServices, resolveService } = await import('@toolhost/host');
  // The host's container is not public API (no serving layer may reach it); the bench inspects
  // the composed host as the host's own tests do, through the built module that keeps it.
  const { containerOf } = await import('../../host/dist/host.js');
  const host = await createHost(
    {
      plugins: ['@toolhost/plugin-crm-events'],
      toolSets: { CrmEventsApi: { baseUrl: upstream, ...(pacing ? {} : { pacing: false }) } },
      auth: {
        providers: {
          [PROVIDER]: {
            clientId: 'bench-client',
            authorizeUrl: 'http://127.0.0.1:9/authorize',
            tokenUrl: 'http://127.0.0.1:9/token',
            redirectUri: 'http://127.0.0.1:9/oauth/callback/crm-auth-provider',
          },
        },
      },
    },
    { env: { TOOLHOST_TOKEN_KEY: 'bench-token-encryption-key', ...env } },
  );
  const tool = resolveService(containerOf(host), HostServices.registry).get(TOOL);
  const scopes = tool?.declaration.auth.kind === 'provider' ? [...tool.declaration.auth.scopes] : [];
  await resolveService(containerOf(host), HostServices.tokenStore).set(PROVIDER, USER, {
    accessToken: 'bench-oauth-access-token',
    refreshToken: 'bench-oauth-refresh-token',
    expiresAt: Date.now() + 24 * 3_600_000,
    scopes,
  });
  return {
    call: async () => {
      const outcome = await host.callTool(TOOL, { results_per_page_limit: 10 }, { userId: USER });
      if (!outcome.ok) throw new Error(outcome.error.message);
    },
    close: () => host.close(),
  };
}

/** Longer than the paced tool set's spacing (1.1/9 s): every call finds its bucket idle. */
const IDLE_GAP_MS = 150;

/**
 * Calls one at a time, each after an idle gap (not timed).
 * @param {() => Promise<void>} call
 * @param {number} total
 */
const idleCalls = (call, total) => load(call, { total, concurrency: 1, gapMs: IDLE_GAP_MS });

/**
 * @param {string} upstream
 * @param {{ calls: number, rounds: number }} counts
 */
export async function measureStoreCost(upstream, counts) {
  const redis = await startRedis();
  if (!redis) return undefined;
  const file = await oauthHost(upstream, { TOOLHOST_DATA_DIR: mkdtempSync(join(SCRATCH_DIR, 'tokens-')) });
  const shared = await oauthHost(upstream, { TOOLHOST_REDIS_URL: redis.url });
  const filePaced = await oauthHost(
    upstream,
    { TOOLHOST_DATA_DIR: mkdtempSync(join(SCRATCH_DIR, 'tokens-')) },
    true,
  );
  const sharedPaced = await oauthHost(upstream, { TOOLHOST_REDIS_URL: redis.url }, true);
  try {
    /** @type {{ file: import('./measure.mjs').Samples[], redis: import('./measure.mjs').Samples[] }} */
    const samples = { file: [], redis: [] };
    for (const s of [file, shared]) await load(s.call, { total: 300, concurrency: 4 });
    const perRound = Math.ceil(counts.calls / counts.rounds);
    for (let r = 0; r < counts.rounds; r += 1) {
      samples.file.push(await load(file.call, { total: perRound, concurrency: 1 }));
      samples.redis.push(await load(shared.call, { total: perRound, concurrency: 1 }));
    }
    const fileStore = summarize(1, samples.file);
    const redisStore = summarize(1, samples.redis);
    /** @type {{ file: import('./measure.mjs').Samples[], redis: import('./measure.mjs').Samples[], unpaced: import('./measure.mjs').Samples[] }} */
    const idle = { file: [], redis: [], unpaced: [] };
    const idlePerRound = Math.max(5, Math.ceil(Math.min(counts.calls, 200) / counts.rounds / 4));
    for (let r = 0; r < counts.rounds; r += 1) {
      idle.file.push(await idleCalls(filePaced.call, idlePerRound));
      idle.redis.push(await idleCalls(sharedPaced.call, idlePerRound));
      idle.unpaced.push(await idleCalls(shared.call, idlePerRound));
    }
    const idleFile = summarize(1, idle.file);
    const idleRedis = summarize(1, idle.redis);
    // An idle call is slower than one in a steady stream whatever paces it (caches, timers):
    // the pacer's cost is measured against the same idle call without pacing.
    const idleUnpaced = summarize(1, idle.unpaced);
    return {
      file: fileStore,
      redis: redisStore,
      p50DeltaMs: round((redisStore.p50 ?? Number.NaN) - (fileStore.p50 ?? Number.NaN)),
      idlePaced: {
        file: idleFile,
        redis: idleRedis,
        unpaced: idleUnpaced,
        /** What the shared pacer adds to an idle call: over the same idle call unpaced (Redis store). */
        pacerP50DeltaMs: round((idleRedis.p50 ?? Number.NaN) - (idleUnpaced.p50 ?? Number.NaN)),
        /** The idle paced call with Redis over the one with the file store. */
        p50DeltaMs: round((idleRedis.p50 ?? Number.NaN) - (idleFile.p50 ?? Number.NaN)),
      },
    };
  } finally {
    await file.close();
    await shared.close();
    await filePaced.close();
    await sharedPaced.close();
    redis.close();
  }
}
