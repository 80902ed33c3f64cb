import type { DependencyContainer } from 'tsyringe';
import { checkDeclarations } from './check-declarations.js';
import { CONTRACT_VERSION } from './contract-version.js';
import { TOOL_SET } from './di-tokens.js';
import type { OAuthEndpoints } from './token-store.js';
import type { ToolDeclaration, ToolSetDefinition, ToolSetSettings } from './tool-declaration.js';

/** Options every tool-set plugin accepts from the host's configuration. */
export interface PluginOptions {
  /** Overrides the `default` server's base URL (a proxy, a regional endpoint, a test server). */
  baseUrl?: string;
  /** Overrides base URLs per server key. */
  baseUrls?: Record<string, string>;
  /** Plugin-specific settings, validated by the plugin. */
  settings?: Record<string, unknown>;
  /**
   * Overrides the plugin's request pacing: another rate (a raised vendor limit), or `false`
   * where something else already paces (a proxy, a test server).
   */
  pacing?: { requestsPerSecond: number } | false;
}

/** What a plugin package exports: the contract between a tool-set package and any host. */
export interface ToolPlugin {
  /** The contract version this plugin implements; see `checkContractVersion`. */
  readonly contractVersion: string;
  /** Package name. */
  readonly name: string;
  /** Package version. */
  readonly version: string;
  readonly toolSet: string;
  /** Puts the plugin's tool set into the container under `TOOL_SET`. */
  register(container: DependencyContainer, options?: PluginOptions): void;
}

export interface ToolSetPluginDefinition {
  name: string;
  version: string;
  toolSet: string;
  /** Default base URL per server key; `default` is required. */
  servers: Record<string, string>;
  tools: readonly ToolDeclaration[];
  settings?: ToolSetSettings;
  /** Default OAuth endpoints of the auth providers the tools use (the vendor's real ones). */
  oauth?: Record<string, OAuthEndpoints>;
  /** Adjusts servers from plugin-specific settings (e.g. a region), before explicit base URLs apply. */
  resolveServers?: (
    settings: Record<string, unknown>,
    servers: Record<string, string>,
  ) => Record<string, string>;
}

/**
 * Builds the plugin object of a tool set from its data. `bound` options act as defaults
 * under the ones the host passes at registration (the factory form of every plugin).
 */
export function defineToolSetPlugin(def: ToolSetPluginDefinition, bound: PluginOptions = {}): ToolPlugin {
  checkDeclarations(def.toolSet, def.tools, def.servers);
  return {
    contractVersion: CONTRACT_VERSION,
    name: def.name,
    version: def.version,
    toolSet: def.toolSet,
    register(container, options = {}) {
      const settings = { ...bound.settings, ...options.settings };
      let servers = { ...def.servers };
      if (def.resolveServers) servers = def.resolveServers(settings, servers);
      servers = { ...servers, ...bound.baseUrls, ...options.baseUrls };
      const baseUrl = options.baseUrl ?? bound.baseUrl;
      if (baseUrl) servers.default = baseUrl;
      const definition: ToolSetDefinition = {
        toolSet: def.toolSet,
        plugin: { name: def.name, version: def.version },
        servers,
        tools: def.tools,
        settings: withPacing(def.settings, options.pacing ?? bound.pacing),
        ...(def.oauth ? { oauth: def.oauth } : {}),
        settingValues: settings,
      };
      container.register(TOOL_SET, { useValue: definition });
    },
  };
}

function withPacing(
  settings: ToolSetSettings | undefined,
  pacing: PluginOptions['pacing'],
): ToolSetSettings | undefined {
  if (pacing === undefined || !settings?.pacing) return settings;
  if (pacing === false) {
    const { pacing: _off, ...rest } = settings;
    return rest;
  }
  return { ...settings, pacing: { ...settings.pacing, requestsPerSecond: pacing.requestsPerSecond } };
}
