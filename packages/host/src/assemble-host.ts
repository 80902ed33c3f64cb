import { type AuthProvider, type SecretSource, serviceToken, type ToolSetDefinition } from '@toolhost/core';
import type { OAuthAuthProvider } from '@toolhost/credentials';
import {
  type EngineObserver,
  type EngineOptions,
  MapSecretSource,
  ToolEngine,
  ToolRegistry,
  UndiciHttpSender,
} from '@toolhost/engine';
import { declaredCredentials } from '@toolhost/engine/internal';
import type { DependencyContainer } from 'tsyringe';
import { buildAuthProviders, defaultTokenStore, oauthClientIdOf } from './auth/build-auth-providers.js';
import { bundleFields, howToSet } from './config/bundle-environment.js';
import type { HostConfig } from './config/host-config.js';
import { resolveSecrets } from './config/resolve-secrets.js';
import { settingHint } from './config/settings-from-env.js';
import { toolSelector } from './config/tool-selection.js';
import type { Logger } from './logger.js';
import {
  HostServices,
  registerDefault,
  registerService,
  resolveService,
  resolveServices,
} from './services.js';
import { sharedStoreUrl } from './store/redis-url.js';
import type { SharedStore } from './store/shared-store.js';

/** The auth providers in effect: the embedder's, then the host's own for the remaining ids. */
export const ACTIVE_AUTH_PROVIDERS = serviceToken<readonly AuthProvider[]>('host.active-auth-providers');
/** Redis shared by replicas, registered only when configured (the HTTP server shares sessions through it). */
export const SHARED_STORE = serviceToken<SharedStore>('host.shared-store');

export interface AssemblyInput {
  config: HostConfig;
  env: Readonly<Record<string, string | undefined>>;
  /** Where relative paths in the config start (secretsFile, dataDir). */
  configDir: string;
  /** The tool sets the plugins registered. */
  toolSets: readonly ToolSetDefinition[];
  /** Redis shared by replicas, when configured: tokens, refresh lock, pacing. */
  shared?: SharedStore;
  /** Told what happens inside calls (traces and metrics). */
  observer?: EngineObserver;
  /** The OAuth client, loaded only where some provider signs users in with it. */
  oauthClient?: typeof OAuthAuthProvider;
}

function optionalLogger(c: DependencyContainer): Logger | undefined {
  return c.isRegistered(HostServices.logger, true) ? resolveService(c, HostServices.logger) : undefined;
}

/** The engine over the container's registry, providers, secrets and sender, with the config's limits. */
function buildEngine(
  c: DependencyContainer,
  input: Pick<AssemblyInput, 'config' | 'observer' | 'env'>,
  shared: SharedStore | undefined,
): ToolEngine {
  const logger = optionalLogger(c);
  const fields = bundleFields(input.env);
  const options: EngineOptions = {
    ...input.config.engine,
    settingHint: (toolSet, setting) => settingHint(toolSet, setting, fields),
    ...(input.observer ? { observer: input.observer } : {}),
    onUnexpectedError: (error, tool) =>
      logger?.error(
        {
          tool,
          err: error instanceof Error ? { message: error.message, stack: error.stack } : String(error),
        },
        'unexpected failure',
      ),
  };
  return new ToolEngine(
    resolveService(c, HostServices.registry),
    {
      authProviders: resolveService(c, ACTIVE_AUTH_PROVIDERS),
      secrets: resolveService(c, HostServices.secretSource),
      http: resolveService(c, HostServices.httpSender),
      ...(shared ? { pacer: shared.pacers } : {}),
    },
    options,
  );
}

/** The configured secrets, explained as the bundle's fields when the host runs from an MCP Bundle. */
function configuredSecretSource(
  values: Record<string, string | undefined>,
  env: Readonly<Record<string, string | undefined>>,
): SecretSource {
  const source = new MapSecretSource(values);
  const fields = bundleFields(env);
  if (fields.size === 0) return source;
  return {
    getSecret: (name) => source.getSecret(name),
    describe: (name) => (fields.has(name) ? howToSet(name, fields) : source.describe(name)),
  };
}

/**
 * Registers the host's default services, each built on first use and only where the
 * container (or the embedder's parent container) has none: HTTP sender, token store, secret
 * source, auth providers, registry, engine.
 */
export function registerDefaultServices(
  container: DependencyContainer,
  input: AssemblyInput,
): { tokenStoreInUse: () => boolean } {
  const { config, env, configDir, toolSets, shared } = input;
  const { providers: providerIds, secrets: secretNames } = declaredCredentials(toolSets);
  let secrets: Record<string, string | undefined> | undefined;
  const configuredSecrets = () => {
    secrets ??= resolveSecrets(config, secretNames, env as NodeJS.ProcessEnv, configDir);
    return secrets;
  };

  const connections = config.engine?.maxConcurrentRequests;
  registerDefault(container, HostServices.httpSender, () => new UndiciHttpSender(env, connections));
  const tokenStoreInUse = registerDefault(
    container,
    HostServices.tokenStore,
    (c) =>
      shared?.tokenStore ?? defaultTokenStore(config, env as NodeJS.ProcessEnv, configDir, optionalLogger(c)),
  );
  registerDefault(
    container,
    HostServices.secretSource,
    (): SecretSource => configuredSecretSource(configuredSecrets(), env),
  );
  registerDefault(container, ACTIVE_AUTH_PROVIDERS, (c) =>
    buildAuthProviders({
      config,
      env: env as NodeJS.ProcessEnv,
      providerIds,
      toolSets,
      custom: resolveServices(c, HostServices.authProvider),
      secrets: configuredSecrets(),
      tokenStore: () => resolveService(c, HostServices.tokenStore),
      refreshLock: shared?.refreshLock,
      ...(shared ? { flows: shared.flows } : {}),
      ...(input.oauthClient ? { oauthClient: input.oauthClient } : {}),
    }),
  );
  registerDefault(container, HostServices.registry, () =>
    new ToolRegistry(toolSets).filter(toolSelector(config)),
  );
  registerDefault(container, HostServices.engine, (c) => buildEngine(c, input, shared));
  return { tokenStoreInUse };
}

/**
 * Opens the shared store when one is configured (before anything is built from it, so a host
 * that cannot reach Redis never starts), registers the defaults, and resolves the services the
 * host runs on. Redis's client loads only when configured.
 */
export async function composeServices(
  container: DependencyContainer,
  input: Omit<AssemblyInput, 'shared'> & { logger?: Logger },
): Promise<{
  engine: ToolEngine;
  registry: ToolRegistry;
  providers: readonly AuthProvider[];
  tokenStoreInUse: () => boolean;
  shared: SharedStore | undefined;
}> {
  const shared = sharedStoreUrl(input.config, input.env)
    ? await (await import('./store/shared-store.js')).openSharedStore(input.config, input.env, input.logger)
    : undefined;
  const oauthClient = await oauthClientIfUsed(input);
  const { tokenStoreInUse } = registerDefaultServices(container, {
    ...input,
    shared,
    ...(oauthClient ? { oauthClient } : {}),
  });
  if (shared) registerService(container, SHARED_STORE, shared);
  try {
    return {
      engine: resolveService(container, HostServices.engine),
      registry: resolveService(container, HostServices.registry),
      providers: resolveService(container, ACTIVE_AUTH_PROVIDERS),
      tokenStoreInUse,
      shared,
    };
  } catch (e) {
    // Its connection would keep the process alive after a failed start.
    await shared?.close();
    throw e;
  }
}

/**
 * The OAuth client (with oauth4webapi), where a provider the tools use signs users in with it:
 * a host whose providers all take static tokens starts without it.
 */
async function oauthClientIfUsed(
  input: Pick<AssemblyInput, 'config' | 'env' | 'toolSets'>,
): Promise<typeof OAuthAuthProvider | undefined> {
  const { providers: providerIds } = declaredCredentials(input.toolSets);
  const env = input.env as NodeJS.ProcessEnv;
  if (![...providerIds].some((id) => oauthClientIdOf(input.config, env, id))) return undefined;
  return (await import('@toolhost/credentials')).OAuthAuthProvider;
}
