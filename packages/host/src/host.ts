import 'reflect-metadata';
import type {
  AuthProvider,
  CallContext,
  SecretSource,
  TokenStore,
  ToolOutcome,
  ToolPlugin,
} from '@toolhost/core';
import type { HttpSender, RegisteredTool, ToolEngine, ToolRegistry } from '@toolhost/engine';
import { type DependencyContainer, container as rootContainer } from 'tsyringe';
import { ACTIVE_AUTH_PROVIDERS, registerDefaultServices } from './assemble-host.js';
import { OAuthAuthProvider } from './auth/oauth-provider.js';
import { checkConfigAgainstCatalog } from './config/check-against-catalog.js';
import type { HostConfig } from './config/host-config.js';
import { validateConfig } from './config/load-config.js';
import type { Logger } from './logger.js';
import { discoverPlugins, pluginSearchBases, searchedDirectories } from './plugins/discover-plugins.js';
import { importPlugins, registerPlugins } from './plugins/load-plugins.js';
import { HostServices, registerService, resolveService } from './services.js';
import { sharedStoreUrl } from './store/redis-url.js';
import { unknownToolMessage } from './unknown-tool.js';

export interface HostOptions {
  /** Plugin objects to register directly, in addition to (or instead of) packages named in config. */
  plugins?: ToolPlugin[];
  /** Plugin packages (names or paths) to load instead of the config's `plugins` and discovery. */
  pluginPackages?: string[];
  /**
   * The embedder's tsyringe container: services registered in it under `HostServices` tokens
   * replace the host's defaults (the host works in a child container of it).
   */
  container?: DependencyContainer;
  /** Auth providers that replace the static-token stand-ins for their ids. */
  authProviders?: AuthProvider[];
  /** A secret source that replaces the config/environment one. */
  secrets?: SecretSource;
  /** Replaces the axios sender (tests, custom transports). */
  httpSender?: HttpSender;
  /** The config file's directory: relative paths in the config start there, and plugins are looked for beside it. */
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
  /** The host's container: its services under `HostServices` tokens. */
  readonly container: DependencyContainer;
  /** Where plugins were looked for: the node_modules directories read (for messages when none is found). */
  readonly pluginSearch: { readonly directories: readonly string[]; readonly discovered: boolean };
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

/** Creates a host from a config object: loads plugins, composes its services in the container. */
export async function createHost(rawConfig: HostConfig = {}, options: HostOptions = {}): Promise<Host> {
  const config = validateConfig(rawConfig);
  const env = options.env ?? process.env;
  const configDir = options.configDir ?? process.cwd();
  const bases = pluginSearchBases(options.configDir, process.cwd());
  const explicit = options.pluginPackages ?? config.plugins;
  const names = explicit ?? (options.plugins?.length ? [] : discoverPlugins(bases));
  const plugins = [...(options.plugins ?? []), ...(await importPlugins(names, bases))];

  const container = (options.container ?? rootContainer).createChildContainer();
  registerService(container, HostServices.config, config);
  if (options.logger) registerService(container, HostServices.logger, options.logger);
  if (options.httpSender) registerService(container, HostServices.httpSender, options.httpSender);
  if (options.tokenStore) registerService(container, HostServices.tokenStore, options.tokenStore);
  if (options.secrets) registerService(container, HostServices.secretSource, options.secrets);
  for (const provider of options.authProviders ?? [])
    registerService(container, HostServices.authProvider, provider);
  const toolSets = registerPlugins(container, plugins, config);
  checkConfigAgainstCatalog(config, toolSets);
  // Opened before anything is built from it, so a host that cannot reach Redis never starts.
  // Loaded only when configured: a single host starts without the Redis client's weight.
  const shared = sharedStoreUrl(config, env)
    ? await (await import('./store/shared-store.js')).openSharedStore(config, env, options.logger)
    : undefined;
  const { tokenStoreInUse } = registerDefaultServices(container, {
    config,
    env,
    configDir,
    toolSets,
    shared,
  });

  let engine: ToolEngine;
  let registry: ToolRegistry;
  let providers: readonly AuthProvider[];
  try {
    engine = resolveService(container, HostServices.engine);
    registry = resolveService(container, HostServices.registry);
    providers = resolveService(container, ACTIVE_AUTH_PROVIDERS);
  } catch (e) {
    // Its connection would keep the process alive after a failed start.
    await shared?.close();
    throw e;
  }
  const infos = new Map(registry.list().map((t) => [t.name, toInfo(t)]));
  const exposed = new Set(infos.keys());
  const defaultUser = config.defaultUserId ?? 'default';
  const log = container.isRegistered(HostServices.logger, true)
    ? resolveService(container, HostServices.logger)
    : undefined;
  const inFlight = new Set<{ controller: AbortController; done: Promise<void> }>();
  let closing = false;
  let callCounter = 0;

  return {
    config,
    plugins,
    container,
    pluginSearch: { directories: searchedDirectories(bases), discovered: explicit === undefined },
    oauthProviders: providers.filter((p): p is OAuthAuthProvider => p instanceof OAuthAuthProvider),
    listTools: () => [...infos.values()],
    getTool: (name) => infos.get(name),
    warm: () => engine.warm(),
    async callTool(name, args, callOptions = {}) {
      if (!infos.has(name)) {
        return {
          ok: false,
          error: {
            code: 'unknown_tool',
            message: unknownToolMessage(name, config, container, exposed),
            retryable: false,
          },
        };
      }
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
      // Only a store that was built (or given) is flushed: resolving it here would create one.
      if (tokenStoreInUse()) {
        const store = resolveService(container, HostServices.tokenStore) as { flush?: () => Promise<void> };
        await store.flush?.();
      }
      engine.close();
      await container.dispose();
      await shared?.close();
    },
  };
}
