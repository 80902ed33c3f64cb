import { createRequire } from 'node:module';
import type { ToolOutcome, ToolPlugin } from '@toolhost/core';
import { describeTool, TOOL_SET_TOKEN, type ToolSetDefinition } from '@toolhost/core';
import {
  hasBrowserSignIn,
  isRefreshingProvider,
  type RefreshingProvider,
  type SignInProvider,
} from '@toolhost/credentials/provider-kinds';
import type { RegisteredTool } from '@toolhost/engine';
import type { PastRequest } from '@toolhost/search';
import type { DependencyContainer } from 'tsyringe';
import { ACTIVE_AUTH_PROVIDERS, composeServices, SHARED_STORE } from './assemble-host.js';
import { encryptedDataDir } from './auth/build-auth-providers.js';
import { providerServices } from './auth/provider-services.js';
import { CallLifecycle, SHUTTING_DOWN } from './call-lifecycle.js';
import { bundleFields } from './config/bundle-environment.js';
import { checkConfigAgainstCatalog } from './config/check-against-catalog.js';
import { resolveConfig } from './config/config-defaults.js';
import type { HostConfig, ResolvedHostConfig } from './config/host-config.js';
import { validateConfig } from './config/load-config.js';
import { applySettingsFromEnv, settingHint } from './config/settings-from-env.js';
import { hostConnections } from './connections.js';
import type { Host, ToolEndpoint, ToolInfo } from './host-api.js';
import type { HostOptions } from './host-options.js';
import type { Logger } from './logger.js';
import { AUDIT_LOG, openAuditLog } from './observability/audit-log.js';
import { telemetryKey } from './observability/hash-user-id.js';
import { HostTelemetry } from './observability/host-telemetry.js';
import { discoverPlugins, pluginSearchBases, searchedDirectories } from './plugins/discover-plugins.js';
import { importPlugins, registerPlugins } from './plugins/load-plugins.js';
import { toolSetReadiness } from './readiness.js';
import { HostServices, registerService, resolveIfAny, resolveService, resolveServices } from './services.js';
import type { SharedStore } from './store/shared-store.js';

export type { CallOptions, Host, ToolEndpoint, ToolInfo } from './host-api.js';

import type { ServingSupport, ToolSetSkill } from './serving-support.js';
import { unknownToolMessage } from './unknown-tool.js';
import { writeSafetyOf } from './write-safety-on-demand.js';

const require = createRequire(import.meta.url);
// Required, not imported: see docs/performance.md, "CommonJS packages at start". tsyringe needs
// the Reflect metadata polyfill loaded first.
require('reflect-metadata');
const { container: rootContainer } = require('tsyringe') as typeof import('tsyringe');

function toInfo(tool: RegisteredTool): ToolInfo {
  return {
    name: tool.name,
    toolSet: tool.toolSet,
    description: describeTool(tool.declaration),
    inputSchema: tool.inputSchema,
    hints: tool.hints,
    endpoint: endpointOf(tool.declaration),
  };
}

function endpointOf(decl: RegisteredTool['declaration']): ToolEndpoint {
  const at = (p: { name: string; apiName?: string }) => decl.path.indexOf(`{${p.apiName ?? p.name}}`);
  const pathParams = (decl.params ?? [])
    .filter((p) => p.in === 'path' && at(p) >= 0)
    .sort((a, b) => at(a) - at(b))
    .map((p) => p.name);
  return { method: decl.method, path: decl.path, pathParams };
}

/** The services the options hand over, in the host's container (where they win over defaults). */
function registerGivenServices(
  container: DependencyContainer,
  config: HostConfig,
  options: HostOptions,
): void {
  registerService(container, HostServices.config, config);
  if (options.logger) registerService(container, HostServices.logger, options.logger);
  if (options.httpSender) registerService(container, HostServices.httpSender, options.httpSender);
  if (options.tokenStore) registerService(container, HostServices.tokenStore, options.tokenStore);
  if (options.secrets) registerService(container, HostServices.secretSource, options.secrets);
  for (const provider of options.authProviders ?? [])
    registerService(container, HostServices.authProvider, provider);
}

/** The plugins to serve: those given, then the packages named (or, with none named, discovered). */
async function loadPlugins(config: ResolvedHostConfig, options: HostOptions) {
  const bases = pluginSearchBases(options.configDir, process.cwd(), options.pluginDirs);
  const explicit = options.pluginPackages ?? config.plugins;
  const names = explicit ?? (options.plugins?.length ? [] : discoverPlugins(bases));
  const unloadable: { name: string; reason: string }[] = [];
  const skip =
    options.unloadablePlugins === 'skip'
      ? (name: string, e: Error) => unloadable.push({ name, reason: e.message })
      : undefined;
  const pathsFrom = options.pluginPackages ? process.cwd() : bases[0];
  const plugins = [...(options.plugins ?? []), ...(await importPlugins(names, bases, skip, pathsFrom))];
  return {
    plugins,
    pluginSearch: { directories: searchedDirectories(bases), discovered: explicit === undefined, unloadable },
  };
}

/** The host's services, composed in a child of the embedder's container. */
async function assemble(
  fileConfig: ResolvedHostConfig,
  options: HostOptions,
  plugins: readonly ToolPlugin[],
) {
  const env = options.env ?? process.env;
  const config = applySettingsFromEnv(fileConfig, plugins, env);
  const container = (options.container ?? rootContainer).createChildContainer();
  registerGivenServices(container, config, options);
  const toolSets = registerPlugins(container, plugins, config);
  checkConfigAgainstCatalog(config, toolSets);
  const telemetry = new HostTelemetry(telemetryKey(config.telemetry?.userIdKey, env));
  const configDir = options.configDir ?? process.cwd();
  // Write-safety records go where the host's own token file goes, not beside an embedder's store.
  // (A shared store, when configured, takes precedence in createWriteSafety.)
  const ownTokenFile = container.isRegistered(HostServices.tokenStore, true)
    ? undefined
    : encryptedDataDir(config, env, configDir);
  const services = await composeServices(container, {
    config,
    env,
    configDir,
    toolSets,
    observer: telemetry.observer,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const audit = openAuditLog(config.audit, env, configDir);
  if (audit) registerService(container, AUDIT_LOG, audit);
  const log = resolveIfAny(container, HostServices.logger);
  const calls = new CallLifecycle(services.engine, log, telemetry);
  const writes = await writeSafetyOf({
    settings: config.tools,
    calls,
    engine: services.engine,
    shared: services.shared,
    file: ownTokenFile,
    onClaimWaited: (ms) => telemetry.waited('idempotency_claim', ms),
  });
  // Told apart by what they can do, not their class: an embedder's provider may do either.
  const oauthProviders = services.providers.filter(hasBrowserSignIn);
  const refreshing = services.providers.filter(isRefreshingProvider);
  reportRefreshes(refreshing, telemetry, log);
  if (services.shared) gaugeSharedStore(services.shared, telemetry);
  return {
    container,
    telemetry,
    calls,
    writes,
    oauthProviders,
    refreshing,
    audit,
    env,
    ownTokenFile,
    ...services,
  };
}

/** Each provider's token refreshes, counted, and the ones that cost a user something, logged. */
function reportRefreshes(
  refreshing: readonly RefreshingProvider[],
  telemetry: HostTelemetry,
  log: Logger | undefined,
): void {
  for (const p of refreshing) {
    p.onRefreshed(({ outcome, why }) => {
      telemetry.tokenRefresh(p.id, outcome);
      // An operator hears of what costs a user their connection, or a call: never the token.
      if (outcome !== 'ok') log?.warn({ provider: p.id, outcome }, why);
    });
    p.onLockWaited((ms) => telemetry.waited('refresh_lock', ms));
  }
}

/** The shared store's state on `/metrics`: reached or not, and the pacers it cannot share. */
function gaugeSharedStore(shared: SharedStore, telemetry: HostTelemetry): void {
  telemetry.gauge({
    name: 'toolhost_shared_store_up',
    help: 'Whether this replica reaches the shared store (Redis): 1 or 0.',
    read: () => (shared.reachable() ? 1 : 0),
  });
  telemetry.gauge({
    name: 'toolhost_pacing_degraded',
    help: 'Per pacer, 1 while it paces per process because Redis is unreachable (replicas together may exceed the rate).',
    label: 'pacer',
    read: () => shared.degradedPacing(),
  });
}

type Assembled = Awaited<ReturnType<typeof assemble>>;

/** Stops taking calls, lets in-flight ones finish, flushes token and record writes, releases connections. */
async function closeHost(parts: Assembled, graceMs: number): Promise<void> {
  // Once the grace is over, calls are cancelled; the token requests they may wait on (a
  // stalled token endpoint) are cancelled with them, or stopping would wait on those.
  const started = Date.now();
  const cancel = setTimeout(() => {
    for (const p of parts.refreshing) void p.close();
  }, graceMs);
  await parts.calls.drain(graceMs);
  clearTimeout(cancel);
  // A refresh still running gets what is left of the grace: cut short, its refresh token may
  // be spent without the host learning the new one.
  const left = Math.max(0, graceMs - (Date.now() - started));
  await Promise.all(parts.refreshing.map((p) => p.close(left)));
  // Only a store that was built (or given) is flushed: resolving it here would create one.
  if (parts.tokenStoreInUse()) {
    const store = resolveService(parts.container, HostServices.tokenStore) as { flush?: () => Promise<void> };
    await store.flush?.();
  }
  await parts.writes.flush();
  parts.audit?.flush();
  parts.engine.close();
  await parts.container.dispose();
  await parts.shared?.close();
}

/** The transports' view of the host's services, resolved here so that they never need the container. */
function servingSupport(
  container: DependencyContainer,
  config: ResolvedHostConfig,
  registry: { get(name: string): RegisteredTool | undefined },
  telemetry: HostTelemetry,
  exposed: ReadonlySet<string>,
  oauthProviders: readonly SignInProvider[],
  settingHintOf: (toolSet: string, setting: string) => string,
): Omit<ServingSupport, 'env' | 'dataDir'> {
  const sharedStore = resolveIfAny(container, SHARED_STORE);
  const providers = resolveService(container, ACTIVE_AUTH_PROVIDERS);
  return {
    replicas: sharedStore?.replicas,
    logger: resolveIfAny(container, HostServices.logger),
    auditLog: resolveIfAny(container, AUDIT_LOG),
    queryParameters: (tool) =>
      (registry.get(tool)?.declaration.params ?? [])
        .filter((p) => p.in === 'query' && !p.fromSetting)
        .map((p) => ({ name: p.name, apiName: p.apiName ?? p.name })),
    explainUnknownTool: (name, exposed, spelling) =>
      unknownToolMessage(name, config, container, exposed, spelling),
    requestBodySchema: (tool) => {
      const body = registry.get(tool)?.declaration.body;
      return body?.kind === 'mode' ? body.schema : undefined;
    },
    readiness: () =>
      toolSetReadiness({
        sets: resolveServices(container, TOOL_SET_TOKEN),
        providers,
        secrets: resolveService(container, HostServices.secretSource),
        exposed,
        userId: config.defaultUserId,
        settingHint: settingHintOf,
      }),
    connections: hostConnections(providers, () => resolveService(container, HostServices.tokenStore)),
    skills: exposedSkills(resolveServices(container, TOOL_SET_TOKEN), exposed),
    pastRequests: exposedPastRequests(resolveServices(container, TOOL_SET_TOKEN), exposed),
    providerServices: () =>
      providerServices(resolveServices(container, TOOL_SET_TOKEN), exposed, oauthProviders),
    gauge: (source) => telemetry.gauge(source),
    countCalls: () => telemetry.countCalls(),
  };
}

/** The skills the plugins of the exposed tool sets declare. */
function exposedSkills(toolSets: readonly ToolSetDefinition[], exposed: ReadonlySet<string>): ToolSetSkill[] {
  const sets = new Set([...exposed].map((name) => name.slice(0, name.indexOf('.'))));
  return toolSets
    .filter((set) => set.skill !== undefined && sets.has(set.toolSet))
    .map((set) => ({ toolSet: set.toolSet, folder: set.skill as string }));
}

/** The past requests the plugins of the exposed tool sets declare, for the exposed tools only. */
function exposedPastRequests(
  toolSets: readonly ToolSetDefinition[],
  exposed: ReadonlySet<string>,
): PastRequest[] {
  return toolSets.flatMap((set) =>
    (set.pastRequests ?? []).flatMap((r) => {
      const tools = r.tools.map((t) => `${set.toolSet}.${t}`).filter((t) => exposed.has(t));
      return tools.length > 0
        ? [{ request: r.request, tools, ...(r.source ? { source: r.source } : {}) }]
        : [];
    }),
  );
}

/**
 * Each host's container, for the CLI and the tests, which compose or inspect the host; not on
 * the `Host` API, so that no layer that serves it can reach the services behind it.
 */
const containers = new WeakMap<Host, DependencyContainer>();

/** The container a host composed its services in (its `HostServices` tokens). */
export function containerOf(host: Host): DependencyContainer {
  const container = containers.get(host);
  if (!container) throw new Error('Not a host made by createHost');
  return container;
}

/** Creates a host from a config object: loads plugins, composes its services in the container. */
export async function createHost(rawConfig: HostConfig = {}, options: HostOptions = {}): Promise<Host> {
  const config = resolveConfig(validateConfig(rawConfig));
  const { plugins, pluginSearch } = await loadPlugins(config, options);
  const parts = await assemble(config, options, plugins);
  const { container, calls, writes, telemetry } = parts;
  const infos = new Map(parts.registry.list().map((t) => [t.name, toInfo(t)]));
  const exposed = new Set(infos.keys());
  const defaultUser = config.defaultUserId;
  const fields = bundleFields(options.env ?? process.env);
  const unknown = (name: string): ToolOutcome => ({
    ok: false,
    error: {
      code: 'unknown_tool',
      message: unknownToolMessage(name, config, container, exposed),
      retryable: false,
    },
  });

  const host: Host = {
    config,
    plugins,
    pluginSearch,
    oauthProviders: parts.oauthProviders,
    serving: {
      ...servingSupport(container, config, parts.registry, telemetry, exposed, parts.oauthProviders, (t, s) =>
        settingHint(t, s, fields),
      ),
      env: parts.env,
      dataDir: parts.ownTokenFile,
    },
    listTools: () => [...infos.values()],
    getTool: (name) => infos.get(name),
    warm: async () => {
      await Promise.all([parts.engine.warm(), telemetry.wanted ? telemetry.load() : undefined]);
    },
    metrics: () => telemetry.metricsText(),
    async callTool(name, args, callOptions = {}) {
      const info = infos.get(name);
      if (!info) return unknown(name);
      const userId = callOptions.userId ?? defaultUser;
      // Read-only tools change nothing: never held for confirmation, keys ignored.
      return info.hints.readOnly
        ? calls.run(name, args, userId, callOptions.signal, callOptions.onWait)
        : writes.call(name, args, { ...callOptions, userId });
    },
    async previewToolCall(name, args, previewOptions = {}) {
      if (!infos.has(name)) return unknown(name);
      // A preview is stored: after close, in a store already flushed (a file claimed again).
      if (calls.stopped) return SHUTTING_DOWN;
      return writes.preview(name, args, previewOptions.userId ?? defaultUser);
    },
    applyPreview(previewId, callOptions = {}) {
      return writes.apply(previewId, { ...callOptions, userId: callOptions.userId ?? defaultUser });
    },
    close: (graceMs = config.shutdownGraceSeconds * 1000) => closeHost(parts, graceMs),
  };
  containers.set(host, container);
  return host;
}
