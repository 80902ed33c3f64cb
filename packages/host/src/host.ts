import 'reflect-metadata';
import {
  AUTH_PROVIDER,
  type AuthProvider,
  type CallContext,
  type EngineOptions,
  HTTP_SENDER,
  type HttpSender,
  MapSecretSource,
  type RegisteredTool,
  SECRET_SOURCE,
  type SecretSource,
  TOOL_SET,
  type TokenStore,
  ToolEngine,
  type ToolOutcome,
  type ToolPlugin,
  ToolRegistry,
  type ToolSetDefinition,
} from '@toolhost/core';
import { container as rootContainer } from 'tsyringe';
import { buildAuthProviders, defaultTokenStore } from './auth/build-auth-providers.js';
import { OAuthAuthProvider } from './auth/oauth-provider.js';
import type { HostConfig } from './config/host-config.js';
import { validateConfig } from './config/load-config.js';
import { resolveSecrets } from './config/resolve-secrets.js';
import type { Logger } from './logger.js';
import { discoverPlugins } from './plugins/discover-plugins.js';
import { assertCompatible, loadPlugins } from './plugins/load-plugins.js';
import { toolSelector } from './tool-selection.js';

export interface HostOptions {
  /** Plugin objects to register directly, in addition to (or instead of) packages named in config. */
  plugins?: ToolPlugin[];
  /** Auth providers that replace the static-token stand-ins for their ids. */
  authProviders?: AuthProvider[];
  /** A secret source that replaces the config/environment one. */
  secrets?: SecretSource;
  /** Replaces the axios sender (tests, custom transports). */
  httpSender?: HttpSender;
  /** Directory that relative paths in the config (secretsFile, plugin resolution) start from. */
  configDir?: string;
  /** Environment for overrides (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Where OAuth tokens are kept (default: encrypted file with TOOLHOST_TOKEN_KEY, else memory). */
  tokenStore?: TokenStore;
  logger?: Logger;
}

/** A tool as an embedder or transport sees it. */
export interface ToolInfo {
  /** Canonical name `<ToolSet>.<ToolName>`. */
  name: string;
  toolSet: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: {
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
}

export interface CallOptions {
  /** Whose credentials to use; default the config's defaultUserId, else `default`. */
  userId?: string;
  signal?: AbortSignal;
}

/** The in-process host: list tools and call them, no transport involved. */
export interface Host {
  readonly config: HostConfig;
  readonly plugins: readonly ToolPlugin[];
  /** Providers running the OAuth flow; the HTTP server routes their callbacks. */
  readonly oauthProviders: readonly OAuthAuthProvider[];
  listTools(): ToolInfo[];
  getTool(name: string): ToolInfo | undefined;
  callTool(name: string, args: unknown, options?: CallOptions): Promise<ToolOutcome>;
  close(): Promise<void>;
}

function toInfo(tool: RegisteredTool): ToolInfo {
  return {
    name: tool.name,
    toolSet: tool.toolSet.toolSet,
    description: tool.declaration.description,
    inputSchema: tool.inputSchema,
    annotations: {
      readOnlyHint: tool.hints.readOnly,
      destructiveHint: tool.hints.destructive,
      idempotentHint: tool.hints.idempotent,
      openWorldHint: tool.hints.openWorld,
    },
  };
}

/** Creates a host from a config object: loads plugins, wires auth and secrets, builds the engine. */
export async function createHost(rawConfig: HostConfig = {}, options: HostOptions = {}): Promise<Host> {
  const config = validateConfig(rawConfig);
  const env = options.env ?? process.env;
  const configDir = options.configDir ?? process.cwd();
  const bases = [...new Set([configDir, process.cwd()])];

  const names = config.plugins ?? (options.plugins?.length ? [] : discoverPlugins(bases));
  const plugins = [...(options.plugins ?? []), ...(await loadPlugins(names, bases))];
  for (const p of options.plugins ?? []) assertCompatible(p);

  const container = rootContainer.createChildContainer();
  for (const plugin of plugins) {
    const settings = config.toolSets?.[plugin.toolSet];
    plugin.register(container, {
      ...(settings?.baseUrl ? { baseUrl: settings.baseUrl } : {}),
      ...(settings?.baseUrls ? { baseUrls: settings.baseUrls } : {}),
      ...(settings?.settings ? { settings: settings.settings } : {}),
    });
  }
  const all = ToolRegistry.fromContainer(container);
  const registry = all.filter(toolSelector(config));

  const providerIds = new Set<string>();
  const secretNames = new Set<string>();
  for (const tool of all.list()) {
    const auth = tool.declaration.auth;
    if (auth.kind === 'provider') providerIds.add(auth.provider);
    if (auth.kind === 'secret') secretNames.add(auth.secret);
  }
  const secrets = resolveSecrets(config, secretNames, env, configDir);
  const providers = buildAuthProviders({
    config,
    env,
    providerIds,
    toolSets: container.isRegistered(TOOL_SET) ? container.resolveAll<ToolSetDefinition>(TOOL_SET) : [],
    custom: options.authProviders ?? [],
    secrets,
    tokenStore: () => options.tokenStore ?? defaultTokenStore(config, env, configDir, options.logger),
  });
  for (const provider of providers) container.register(AUTH_PROVIDER, { useValue: provider });
  container.register(SECRET_SOURCE, { useValue: options.secrets ?? new MapSecretSource(secrets) });
  if (options.httpSender) container.register(HTTP_SENDER, { useValue: options.httpSender });

  const engineOptions: EngineOptions = { ...config.engine };
  const engine = ToolEngine.fromContainer(container, registry, engineOptions);
  const infos = new Map(registry.list().map((t) => [t.name, toInfo(t)]));
  const defaultUser = config.defaultUserId ?? 'default';

  return {
    config,
    plugins,
    oauthProviders: providers.filter((p): p is OAuthAuthProvider => p instanceof OAuthAuthProvider),
    listTools: () => [...infos.values()],
    getTool: (name) => infos.get(name),
    callTool(name, args, callOptions = {}) {
      const context: CallContext = { userId: callOptions.userId ?? defaultUser, signal: callOptions.signal };
      return engine.call(name, args, context);
    },
    async close() {
      engine.close();
      await container.dispose();
    },
  };
}
