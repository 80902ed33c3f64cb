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
  /**
   * Loads what the first call needs (the HTTP client), which start-up leaves out so that the
   * tool list is served sooner. Transports call it once the tool list has been answered;
   * without it the first call loads it.
   */
  warm(): Promise<void>;
  /** Stops taking calls, lets in-flight ones finish within `graceMs` (then cancels them), flushes token writes. */
  close(graceMs?: number): Promise<void>;
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
      ...(settings?.pacing !== undefined ? { pacing: settings.pacing } : {}),
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
  let tokenStore: TokenStore | undefined;
  const providers = buildAuthProviders({
    config,
    env,
    providerIds,
    toolSets: container.isRegistered(TOOL_SET) ? container.resolveAll<ToolSetDefinition>(TOOL_SET) : [],
    custom: options.authProviders ?? [],
    secrets,
    tokenStore: () => {
      tokenStore ??= options.tokenStore ?? defaultTokenStore(config, env, configDir, options.logger);
      return tokenStore;
    },
  });
  for (const provider of providers) container.register(AUTH_PROVIDER, { useValue: provider });
  container.register(SECRET_SOURCE, { useValue: options.secrets ?? new MapSecretSource(secrets) });
  if (options.httpSender) container.register(HTTP_SENDER, { useValue: options.httpSender });

  const engineOptions: EngineOptions = {
    ...config.engine,
    onUnexpectedError: (error, tool) =>
      options.logger?.error(
        {
          tool,
          err: error instanceof Error ? { message: error.message, stack: error.stack } : String(error),
        },
        'unexpected failure',
      ),
  };
  const engine = ToolEngine.fromContainer(container, registry, engineOptions);
  const infos = new Map(registry.list().map((t) => [t.name, toInfo(t)]));
  const defaultUser = config.defaultUserId ?? 'default';
  const log = options.logger;
  const inFlight = new Set<{ controller: AbortController; done: Promise<void> }>();
  let closing = false;
  let callCounter = 0;

  return {
    config,
    plugins,
    oauthProviders: providers.filter((p): p is OAuthAuthProvider => p instanceof OAuthAuthProvider),
    listTools: () => [...infos.values()],
    getTool: (name) => infos.get(name),
    warm: () => engine.warm(),
    async callTool(name, args, callOptions = {}) {
      if (closing) {
        return {
          ok: false,
          error: { code: 'cancelled', message: 'The host is shutting down.', retryable: true },
        };
      }
      // The call's own signal, aborted by the caller's (the MCP request's) or by close().
      // A forwarding listener instead of AbortSignal.any: cheaper, and nothing outlives the call.
      const controller = new AbortController();
      const outer = callOptions.signal;
      const forward = () => controller.abort(outer?.reason);
      if (outer?.aborted) forward();
      else outer?.addEventListener('abort', forward, { once: true });
      const userId = callOptions.userId ?? defaultUser;
      const started = log ? performance.now() : 0;
      callCounter += 1;
      const callId = callCounter;
      const call = engine.call(name, args, { userId, signal: controller.signal } satisfies CallContext);
      const entry = { controller, done: call.then(() => undefined) };
      inFlight.add(entry);
      try {
        const outcome = await call;
        if (log) {
          const line: Record<string, unknown> = {
            call: callId,
            tool: name,
            user: userId,
            ms: Math.round((performance.now() - started) * 10) / 10,
          };
          if (outcome.ok) {
            if (outcome.kind === 'response') line.status = outcome.status;
            else line.mode = 'schema';
          } else {
            line.error = outcome.error.code;
            if (outcome.error.status !== undefined) line.status = outcome.error.status;
          }
          log.info(line, 'tool call');
        }
        return outcome;
      } finally {
        outer?.removeEventListener('abort', forward);
        inFlight.delete(entry);
      }
    },
    async close(graceMs = (config.shutdownGraceSeconds ?? 10) * 1000) {
      closing = true;
      const pending = [...inFlight];
      if (pending.length > 0) {
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, graceMs);
        });
        await Promise.race([Promise.all(pending.map((p) => p.done)), deadline]);
        clearTimeout(timer);
        for (const p of inFlight) p.controller.abort(new Error('host shutting down'));
        await Promise.all([...inFlight].map((p) => p.done));
      }
      await (tokenStore as { flush?: () => Promise<void> } | undefined)?.flush?.();
      engine.close();
      await container.dispose();
    },
  };
}
