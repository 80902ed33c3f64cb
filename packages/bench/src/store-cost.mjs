// The per-call cost of where OAuth tokens live: the same call, needing a stored (unexpired)
// OAuth token, through an embedded host whose token store is the encrypted file
// (TOOLHOST_TOKEN_KEY) and one whose store is Redis (TOOLHOST_REDIS_URL), in alternating
// rounds at concurrency 1. The token endpoint is never reached: the token is fresh.
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
 */
async function oauthHost(upstream, env) {
  const { createHost, HostServices, resolveService } = await import('@toolhost/host');
  const host = await createHost(
    {
      plugins: ['@toolhost/plugin-crm-events'],
      toolSets: { CrmEventsApi: { baseUrl: upstream, pacing: false } },
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
  const tool = resolveService(host.container, HostServices.registry).get(TOOL);
  const scopes = tool?.declaration.auth.kind === 'provider' ? [...tool.declaration.auth.scopes] : [];
  await resolveService(host.container, HostServices.tokenStore).set(PROVIDER, USER, {
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

/**
 * @param {string} upstream
 * @param {{ calls: number, rounds: number }} counts
 */
export async function measureStoreCost(upstream, counts) {
  const redis = await startRedis();
  if (!redis) return undefined;
  const file = await oauthHost(upstream, { TOOLHOST_DATA_DIR: mkdtempSync(join(SCRATCH_DIR, 'tokens-')) });
  const shared = await oauthHost(upstream, { TOOLHOST_REDIS_URL: redis.url });
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
    return {
      file: fileStore,
      redis: redisStore,
      p50DeltaMs: round((redisStore.p50 ?? Number.NaN) - (fileStore.p50 ?? Number.NaN)),
    };
  } finally {
    await file.close();
    await shared.close();
    redis.close();
  }
}
