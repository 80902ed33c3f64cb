import type { JsonSchema } from './json-schema.js';
import type { OAuthEndpoints } from './token-store.js';
import type {
  PastRequestDeclaration,
  ToolDeclaration,
  ToolSetDefinition,
  TrafficPolicy,
} from './tool-declaration.js';

/**
 * A typed injection token: a symbol that carries the type of the service registered under it.
 * `Symbol.for` makes two copies of core (a plugin's and the host's) agree on the same token.
 */
export type ServiceToken<T> = symbol & { readonly __service?: T };

export function serviceToken<T>(name: string): ServiceToken<T> {
  return Symbol.for(`toolhost.${name}`) as ServiceToken<T>;
}

/** Where plugins put their tool sets; the host resolves all of them. */
export const TOOL_SET_TOKEN: ServiceToken<ToolSetDefinition> = serviceToken('tool-set');

/**
 * The part of a tsyringe `DependencyContainer` a plugin uses. Structural, so the contract
 * needs tsyringe neither at run time nor in its types; any tsyringe container fits.
 */
export interface PluginContainer {
  register<T>(token: symbol, provider: { useValue: T }): unknown;
}

/** Registers a tool set in the host's container under its typed token. */
export function registerToolSet(container: PluginContainer, definition: ToolSetDefinition): void {
  container.register(TOOL_SET_TOKEN, { useValue: definition });
}

/** Options every tool-set plugin accepts from the host's configuration (`toolSets.<set>`). */
export interface PluginOptions {
  /** Overrides the `default` server's base URL (a proxy, a regional endpoint, a test server). */
  baseUrl?: string;
  /** Overrides base URLs per server key. */
  baseUrls?: Record<string, string>;
  /** Plugin-specific settings, as described by the plugin's `settingsSchema`. */
  settings?: Record<string, unknown>;
  /**
   * Overrides the plugin's request pacing: another rate (a raised vendor limit), or `false`
   * where something else already paces (a proxy, a test server).
   */
  pacing?: { requestsPerSecond: number } | false;
}

/** What a plugin package exports (as its default export): the contract between a tool-set package and any host. */
export interface ToolPlugin {
  /** The contract version the plugin was written against, a literal in the plugin's own code. */
  readonly contractVersion: string;
  /** Package name. */
  readonly name: string;
  /** Package version. */
  readonly version: string;
  readonly toolSet: string;
  /** JSON Schema of `toolSets.<set>.settings`; the host checks the configured settings against it before `register`. */
  readonly settingsSchema?: JsonSchema;
  /** Puts the plugin's tool set into the container (with `registerToolSet`). */
  register(container: PluginContainer, options?: PluginOptions): void;
}

/** A contract version as plugins state it: `MAJOR.MINOR`. */
export type ContractVersionLiteral = `${number}.${number}`;

export interface ToolSetPluginDefinition {
  /** The contract version these declarations are written against (write the literal, e.g. '2.0'). */
  contractVersion: ContractVersionLiteral;
  name: string;
  version: string;
  toolSet: string;
  /** The vendor as people name it (`Airtable`): contract 2.3. */
  vendor?: string;
  /** Default base URL per server key; `default` is required. */
  servers: Readonly<Record<string, string>>;
  tools: readonly ToolDeclaration[];
  traffic?: TrafficPolicy;
  /** Default OAuth endpoints of the auth providers the tools use (the vendor's real ones). */
  oauth?: Readonly<Record<string, OAuthEndpoints>>;
  /** JSON Schema of the plugin's settings (`toolSets.<set>.settings`), e.g. a region or an account id. */
  settingsSchema?: JsonSchema;
  /**
   * The tool set's skill, shipped in the package (contract 2.4): the URL of its folder, e.g.
   * `new URL('../skill/airtable-web-api/', import.meta.url)`. See `ToolSetDefinition.skill`.
   * Typed by its `href` rather than as `URL`, so that consumers without DOM or Node types compile.
   */
  skill?: { readonly href: string } | string;
  /** Requests people made that the set's tools answer (contract 2.6). See `ToolSetDefinition.pastRequests`. */
  pastRequests?: readonly PastRequestDeclaration[];
  /** Adjusts servers from the (already validated) settings, e.g. a region, before explicit base URLs apply. */
  resolveServers?: (
    settings: Readonly<Record<string, unknown>>,
    servers: Readonly<Record<string, string>>,
  ) => Record<string, string>;
}

/**
 * Builds the plugin object of a tool set from its data. `bound` options act as defaults
 * under the ones the host passes at registration (the factory form of every plugin).
 * Declarations are not checked here: the host checks them with its own core when it loads
 * the plugin, which is the core that will execute them.
 */
export function defineToolSetPlugin(def: ToolSetPluginDefinition, bound: PluginOptions = {}): ToolPlugin {
  return {
    contractVersion: def.contractVersion,
    name: def.name,
    version: def.version,
    toolSet: def.toolSet,
    ...(def.settingsSchema ? { settingsSchema: def.settingsSchema } : {}),
    register(container, options = {}) {
      const settings = { ...bound.settings, ...options.settings };
      let servers = { ...def.servers };
      if (def.resolveServers) servers = def.resolveServers(settings, servers);
      servers = { ...servers, ...bound.baseUrls, ...options.baseUrls };
      const baseUrl = options.baseUrl ?? bound.baseUrl;
      if (baseUrl) servers.default = baseUrl;
      const traffic = withPacing(def.traffic, options.pacing ?? bound.pacing);
      registerToolSet(container, {
        contractVersion: def.contractVersion,
        toolSet: def.toolSet,
        ...(def.vendor ? { vendor: def.vendor } : {}),
        plugin: { name: def.name, version: def.version },
        servers,
        tools: def.tools,
        ...(traffic ? { traffic } : {}),
        ...(def.oauth ? { oauth: def.oauth } : {}),
        settingValues: settings,
        ...(def.skill ? { skill: skillFolder(def.skill) } : {}),
        ...(def.pastRequests ? { pastRequests: def.pastRequests } : {}),
      });
    },
  };
}

/** A skill folder's URL as the definition carries it: a string, ending in `/` as a folder's does. */
function skillFolder(url: { readonly href: string } | string): string {
  const href = typeof url === 'string' ? url : url.href;
  return href.endsWith('/') ? href : `${href}/`;
}

function withPacing(
  traffic: TrafficPolicy | undefined,
  pacing: PluginOptions['pacing'],
): TrafficPolicy | undefined {
  if (pacing === undefined || !traffic?.pacing) return traffic;
  if (pacing === false) {
    const { pacing: _off, ...rest } = traffic;
    return rest;
  }
  return { ...traffic, pacing: { ...traffic.pacing, requestsPerSecond: pacing.requestsPerSecond } };
}
