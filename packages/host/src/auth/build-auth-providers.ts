import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AuthProvider, OAuthEndpoints, TokenStore, ToolSetDefinition } from '@toolhost/core';
import type { AuthorizationFlows, OAuthAuthProvider, RefreshLock } from '@toolhost/credentials';
import { EncryptedFileTokenStore, MemoryTokenStore, TOKEN_FILE } from '@toolhost/credentials/token-stores';
import { StaticTokenAuthProvider } from '@toolhost/engine';
import { bundleFields, howToSet } from '../config/bundle-environment.js';
import { CONFIG_DEFAULTS } from '../config/config-defaults.js';
import type { HostConfig } from '../config/host-config.js';
import { ConfigError } from '../config/load-config.js';
import { providerEnvName, tokenEnvName } from '../config/resolve-secrets.js';
import type { Logger } from '../logger.js';

/** The data directory in effect (TOOLHOST_DATA_DIR, auth.dataDir or the default), from the config's. */
const dataDirOf = (config: HostConfig, env: NodeJS.ProcessEnv, configDir: string): string =>
  resolve(configDir, env.TOOLHOST_DATA_DIR ?? config.auth?.dataDir ?? CONFIG_DEFAULTS.auth.dataDir);

/**
 * Where the host keeps its own encrypted files (tokens, write-safety records): the data
 * directory and the key, when TOOLHOST_TOKEN_KEY is set; else undefined (memory).
 */
export function encryptedDataDir(
  config: HostConfig,
  env: NodeJS.ProcessEnv,
  configDir: string,
): { dataDir: string; key: string } | undefined {
  const key = env.TOOLHOST_TOKEN_KEY;
  return key ? { dataDir: dataDirOf(config, env, configDir), key } : undefined;
}

/**
 * Without TOOLHOST_TOKEN_KEY the host keeps tokens in memory, so a token file written with a
 * key is not read: its path, when there is one, so that a command does not report it empty.
 */
export function tokenFileNeedingKey(
  config: HostConfig,
  env: NodeJS.ProcessEnv,
  configDir: string,
): string | undefined {
  if (env.TOOLHOST_TOKEN_KEY) return undefined;
  const file = join(dataDirOf(config, env, configDir), TOKEN_FILE);
  return existsSync(file) ? file : undefined;
}

/** The default token store: encrypted file when TOOLHOST_TOKEN_KEY is set, else memory (with a warning). */
export function defaultTokenStore(
  config: HostConfig,
  env: NodeJS.ProcessEnv,
  configDir: string,
  logger?: Logger,
): TokenStore {
  const place = encryptedDataDir(config, env, configDir);
  if (!place) {
    logger?.warn(
      'TOOLHOST_TOKEN_KEY is not set: OAuth tokens are kept in memory and lost when the host stops',
    );
    return new MemoryTokenStore();
  }
  return EncryptedFileTokenStore.inDirectory(place.dataDir, place.key);
}

export interface AuthProvidersInput {
  config: HostConfig;
  env: NodeJS.ProcessEnv;
  /** Provider ids the loaded tools use. */
  providerIds: Iterable<string>;
  toolSets: readonly ToolSetDefinition[];
  custom: readonly AuthProvider[];
  secrets: Record<string, string | undefined>;
  tokenStore: () => TokenStore;
  /** One refresh at a time across replicas (the shared store's lock), when there are replicas. */
  refreshLock?: RefreshLock;
  /** Pending flows and their completion shared by replicas (Redis), per provider id. */
  flows?: (providerId: string) => AuthorizationFlows;
  /**
   * The OAuth client, loaded by the caller where some provider has one (`oauthClientIdOf`): a
   * host whose providers all take static tokens never loads it.
   */
  oauthClient?: typeof OAuthAuthProvider;
}

/** The client id users of provider `id` sign in with (OAuth); undefined where it takes a static token or has no client. */
export function oauthClientIdOf(config: HostConfig, env: NodeJS.ProcessEnv, id: string): string | undefined {
  const settings = config.auth?.providers?.[id] ?? {};
  if (env[tokenEnvName(id)] || settings.token) return undefined;
  return env[providerEnvName(id, 'CLIENT_ID')] || settings.clientId || undefined;
}

/** The OAuth flow for a provider id: the config's endpoints over the plugin's, the secret from wherever it is set. */
function oauthProvider(
  input: AuthProvidersInput,
  id: string,
  clientId: string,
  endpoints: OAuthEndpoints | undefined,
  store: TokenStore,
  OAuthClient: typeof OAuthAuthProvider,
): OAuthAuthProvider {
  const { env } = input;
  const settings = input.config.auth?.providers?.[id] ?? {};
  const authorizeUrl = settings.authorizeUrl ?? endpoints?.authorizeUrl;
  const tokenUrl = settings.tokenUrl ?? endpoints?.tokenUrl;
  if (!authorizeUrl || !tokenUrl) {
    throw new ConfigError(
      `auth.providers.${id}: no OAuth endpoints are known; set authorizeUrl and tokenUrl.`,
    );
  }
  return new OAuthClient(
    {
      id,
      clientId,
      clientSecret:
        env[providerEnvName(id, 'CLIENT_SECRET')] ||
        settings.clientSecret ||
        input.secrets[providerEnvName(id, 'CLIENT_SECRET')],
      authorizeUrl,
      tokenUrl,
      clientAuth: settings.clientAuth ?? endpoints?.clientAuth,
      revokeUrl: settings.revokeUrl ?? endpoints?.revokeUrl,
      // The plugin's account lookup belongs to the plugin's authorization server: a token
      // endpoint pointed elsewhere (a proxy, another tenant) brings its own or none.
      account:
        settings.account ??
        (settings.tokenUrl === undefined || settings.tokenUrl === endpoints?.tokenUrl
          ? endpoints?.account
          : undefined),
      redirectUri: settings.redirectUri,
      scopes: settings.scopes,
      refreshSkewSeconds: input.config.auth?.refreshSkewSeconds,
      tokenRequestTimeoutMs: (input.config.auth?.tokenRequestTimeoutSeconds ?? 10) * 1000,
    },
    store,
    Date.now,
    input.refreshLock,
    input.flows?.(id),
  );
}

/**
 * One provider per id: the embedder's own, else a static token (config or `<ID>_TOKEN`), else
 * the OAuth flow when a client id is configured, else a static provider that explains setup.
 */
export function buildAuthProviders(input: AuthProvidersInput): AuthProvider[] {
  const { config, env } = input;
  const timeout = config.auth?.tokenRequestTimeoutSeconds ?? 10;
  const lock = input.refreshLock ? input.refreshLock.ttlMs / 1000 : Number.POSITIVE_INFINITY;
  // A token request that outlived the lock would let another replica send the same
  // single-use refresh token.
  if (timeout >= lock)
    throw new ConfigError(
      `auth.tokenRequestTimeoutSeconds (${timeout}) must be shorter than auth.refreshLockSeconds (${lock}).`,
    );
  const custom = new Map(input.custom.map((p) => [p.id, p]));
  const fields = bundleFields(env);
  const defaults = new Map<string, OAuthEndpoints>();
  for (const set of input.toolSets)
    for (const [id, ep] of Object.entries(set.oauth ?? {})) defaults.set(id, ep);

  const ids = new Set([...input.providerIds, ...custom.keys()]);
  const providers: AuthProvider[] = [];
  let store: TokenStore | undefined;
  for (const id of ids) {
    const existing = custom.get(id);
    if (existing) {
      providers.push(existing);
      continue;
    }
    const clientId = oauthClientIdOf(config, env, id);
    if (!clientId) {
      const fromEnv = env[tokenEnvName(id)];
      const fromConfig = config.auth?.providers?.[id]?.token;
      const inConfig = `auth.providers.${id}.token`;
      providers.push(
        new StaticTokenAuthProvider(
          id,
          fromEnv || fromConfig,
          fields.has(tokenEnvName(id))
            ? howToSet(tokenEnvName(id), fields)
            : `set ${tokenEnvName(id)} (a static token), or configure OAuth with auth.providers.${id}.clientId`,
          fromEnv ? tokenEnvName(id) : inConfig,
          // Both set: the environment's is sent, and the config's would be at a start without it.
          fromEnv && fromConfig ? [inConfig] : [],
        ),
      );
      continue;
    }
    if (!input.oauthClient)
      throw new Error(`auth provider ${id} signs in with OAuth, but the OAuth client was not loaded`);
    store ??= input.tokenStore();
    providers.push(oauthProvider(input, id, clientId, defaults.get(id), store, input.oauthClient));
  }
  return providers;
}
