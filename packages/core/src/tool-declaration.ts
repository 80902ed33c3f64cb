import type { JsonSchema } from './json-schema.js';
import type { OAuthEndpoints } from './token-store.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Where a tool parameter lands in the upstream HTTP request. */
export type ParamLocation = 'path' | 'query' | 'header' | 'body';

/**
 * How an array or object parameter is written into the query string.
 * - `form`: arrays repeat the key (`k=a&k=b`); scalars as is.
 * - `comma`: arrays joined with commas (`k=a,b`).
 * - `brackets`: arrays repeat the key with `[]` (`k[]=a&k[]=b`).
 * - `deepObject`: objects and arrays of objects as indexed brackets (`k[0][field]=x`).
 * - `prefixed`: each entry of an object becomes its own key, `keyPrefix` + entry key (`property.name=v`).
 * - `json`: the value JSON-encoded into one key.
 */
export type QueryStyle = 'form' | 'comma' | 'brackets' | 'deepObject' | 'prefixed' | 'json';

/** A value computed at call time when the parameter is absent (a spec-documented default). */
export type DynamicDefault = 'today';

/**
 * In a mode tool, a parameter that only matters when the tool sends its request: `required`
 * must be given in `execute` mode; `optional` may be. Both are ignored by `get_request_schema`.
 */
export type ExecuteOnly = 'required' | 'optional';

export interface ParamDeclaration {
  /** The tool-facing parameter name (the spec's name). */
  name: string;
  description: string;
  /** Tool-facing schema: type, format, enum, bounds, default. */
  schema: JsonSchema;
  /** The caller must give it (in a mode tool, in both modes; see `executeOnly`). */
  required?: boolean;
  in: ParamLocation;
  /** Path, query and header parameters: the API's name, where it differs from `name`. */
  apiName?: string;
  /** Body parameters: a dotted path into the JSON body (`a.b`), where it differs from `name`. */
  bodyPath?: string;
  /** Body parameters: the object's own fields are the body's fields (the parameter is the whole body). */
  wholeBody?: boolean;
  /** Query serialization of arrays and objects (default `form`). */
  style?: QueryStyle;
  /** With style `prefixed`: the text put before each entry's key (`property.`). */
  keyPrefix?: string;
  /** Mode tools: the parameter is used only when executing (see `ExecuteOnly`). */
  executeOnly?: ExecuteOnly;
  /**
   * Maps a tool-facing value to the value the API expects. A value not in the map is not
   * sent at all (e.g. a strict-mode switch whose other values mean "off").
   */
  apiValues?: Readonly<Record<string, string>>;
  /**
   * A string parameter whose text carries structure the API wants spelled out (the spec takes
   * a JSON or comma-separated string; the API wants keys): decoded after validation, before
   * serialization. `json` parses the text and checks it against `schema`; `split` cuts it at
   * `separator`, trimming parts and dropping empty ones.
   */
  decode?: { kind: 'json'; schema: JsonSchema } | { kind: 'split'; separator: string };
  /**
   * An empty array is sent as the key with an empty value (`k=`) instead of being left out,
   * for APIs where an empty list means "none" rather than "the default".
   */
  sendEmptyArray?: boolean;
  /** Send the schema's `default` when the caller leaves the parameter out. */
  sendDefault?: boolean;
  /** Compute a default at call time when the caller leaves the parameter out. */
  dynamicDefault?: DynamicDefault;
  /**
   * Filled from the tool set's configured settings under this key instead of by the caller
   * (e.g. an account-level id the API needs but the tool's spec does not take). Such a
   * parameter is not part of the tool's input schema; `required` means a missing setting is
   * a configuration error.
   */
  fromSetting?: string;
}

/** How the JSON request body is formed. */
export type BodyDeclaration =
  /** Built from the parameters declared `in: 'body'`. */
  | { kind: 'fields'; contentType?: string; limits?: BodyLimits }
  /** The mode tool's `request_body`, validated against `schema`. */
  | { kind: 'mode'; schema: JsonSchema; contentType?: string; limits?: BodyLimits };

export interface BodyLimits {
  /** Upper bound of the serialized body in bytes. */
  maxBytes?: number;
  /** Upper bound per element of the array at this top-level body property (e.g. a batch). */
  perItem?: { property: string; maxBytes: number };
}

export type AuthRequirement =
  /** User authorization through an auth provider, with the scopes the endpoint accepts. */
  | { kind: 'provider'; provider: string; scopes: readonly string[] }
  /** A named secret, applied as the API expects. */
  | { kind: 'secret'; secret: string; scheme: 'basic-username' | 'bearer' }
  | { kind: 'none' };

export interface BehaviorHints {
  readOnly: boolean;
  destructive: boolean;
  idempotent: boolean;
  openWorld: boolean;
}

/**
 * One tool: the upstream endpoint it mirrors and where each parameter goes. The tool set it
 * belongs to is stamped by the plugin definition, not repeated here.
 */
export interface ToolDeclaration {
  /** Tool name within the set, e.g. `RetrieveEventCompletions`. */
  name: string;
  description: string;
  method: HttpMethod;
  /** Path template relative to the server's base URL, `{name}` placeholders filled from path params. */
  path: string;
  /** Which of the tool set's servers (base URLs) the endpoint lives on; default `default`. */
  server?: string;
  params?: readonly ParamDeclaration[];
  body?: BodyDeclaration;
  auth: AuthRequirement;
  /** Groups of parameters of which each call must give at least one (`[['name', 'description']]`). */
  requiresAnyOf?: readonly (readonly string[])[];
  /** Parameters that only make sense together: `{ a: ['b'] }` means giving a requires b. */
  dependentRequired?: Readonly<Record<string, readonly string[]>>;
  /** Overrides for hints derived from the HTTP method (e.g. a POST that only reads). */
  hints?: Partial<BehaviorHints>;
}

/** `<ToolSet>.<ToolName>`, the name a tool is known by in the host, its logs and the CLI. */
export function qualifiedName(toolSet: string, tool: Pick<ToolDeclaration, 'name'>): string {
  return `${toolSet}.${tool.name}`;
}

export function isModeTool(decl: Pick<ToolDeclaration, 'body'>): boolean {
  return decl.body?.kind === 'mode';
}

/**
 * What one pacing bucket is, and its rate.
 * - `key`: the API-side name of the path or query parameter whose value identifies the bucket
 *   (an Airtable base: its limit is per base); tools without that parameter share one bucket
 *   per tool set.
 * - `per: 'connection'`: the credential a call is sent with (`CredentialResult.connection`:
 *   by default one per user and auth provider; one for a token every user shares), for limits
 *   the vendor counts per installed app and account (HubSpot's burst limit). Added in 2.2.
 */
export type PacingPolicy =
  | { key: string; requestsPerSecond: number }
  | { per: 'connection'; requestsPerSecond: number };

/** How a tool set's traffic is shaped to stay within the vendor's limits. */
export interface TrafficPolicy {
  /** Evenly spaced requests per bucket, so that bursts stay under a vendor limit. */
  pacing?: PacingPolicy;
  /**
   * On HTTP 429, wait as the upstream asks (Retry-After, else `defaultWaitSeconds`) and retry
   * once, if the wait is at most `maxWaitSeconds`.
   */
  retryOnRateLimit?: { defaultWaitSeconds: number; maxWaitSeconds: number };
}

/** A tool set as a plugin registers it: its declarations and the base URLs they resolve against. */
export interface ToolSetDefinition {
  /** The contract version the plugin was written against (a literal in the plugin's own code). */
  contractVersion: string;
  toolSet: string;
  /**
   * The vendor whose API the set calls, as people name it (`Airtable`, `HubSpot`, `Customer.io`):
   * shown to people instead of tool-set and provider ids, and matched when they type it.
   */
  vendor?: string;
  /** Package name and version of the plugin that registered it. */
  plugin: { name: string; version: string };
  /** Base URL per server key; `default` is required. */
  servers: Readonly<Record<string, string>>;
  tools: readonly ToolDeclaration[];
  /** Pacing and rate-limit retries the engine applies to this set's requests. */
  traffic?: TrafficPolicy;
  /** Default OAuth endpoints of the auth providers this set's tools use, by provider id. */
  oauth?: Readonly<Record<string, OAuthEndpoints>>;
  /** The plugin settings the operator configured (`toolSets.<set>.settings`), for `fromSetting` parameters. */
  settingValues?: Readonly<Record<string, unknown>>;
  /**
   * The set's skill (contract 2.4): a `file:` URL of a folder shipped in the plugin package, named
   * as the skill is and holding its `SKILL.md` (Agent Skills format: `name` and `description`
   * frontmatter, then the workflows in markdown) and any files it links to. The host serves it
   * through the MCP Skills extension and as a resource.
   */
  skill?: string;
  /**
   * Requests people made of the set's API that its tools answer (contract 2.6), each with the
   * tools (names within the set) that answer it: a question asked in public about the vendor's
   * API, not one written for the tools. The host's tool search leans on the ones most like a
   * request where its own reading of the request is unsure.
   */
  pastRequests?: readonly PastRequestDeclaration[];
}

/** A request people made of a tool set's API, with the tools of the set that answer it. */
export interface PastRequestDeclaration {
  /** The request in its asker's words. */
  request: string;
  /** Names of the set's tools (without the set) that answer it; any of them does. */
  tools: readonly string[];
  /** Where it was asked: an address, when public. */
  source?: string;
}
