import type { Tool } from '@modelcontextprotocol/client';
import type { ToolErrorInfo } from '@toolhost/core';
import { mcpToolName, type ToolSetConfig } from '@toolhost/host';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { standardTests } from './catalog-standard-tests.js';
import { type FakeResponse, type RecordingUpstream, startRecordingUpstream } from './recording-upstream.js';
import { type SpawnedHost, spawnHost } from './spawn-host.js';

export { effectiveHints, responseOf, resultText } from './catalog-standard-tests.js';

/** Arguments of one tool call. */
export type ToolArgs = Record<string, unknown>;

/** One call and the single upstream request it must produce. */
export interface RequestCase {
  /** Tool name without the tool-set prefix, e.g. `ListEventTypes`. */
  tool: string;
  /** Told apart from other cases of the same tool in the test name. */
  label?: string;
  args: ToolArgs;
  method: string;
  /** Decoded path, without the query. */
  path: string;
  /** When given, the path exactly as sent (percent-encoding intact). */
  rawPath?: string;
  /** Query pairs in wire order; default none. */
  query?: [string, string][];
  /** The JSON body; undefined: no body at all. */
  body?: unknown;
}

/**
 * One call the host must refuse with `invalid_argument` before it reaches the upstream:
 * a label for the test name, the tool, its arguments, a pattern the error message matches,
 * and, where given, the parameter the error names.
 */
export type BadInput = [label: string, tool: string, args: ToolArgs, pattern: RegExp, parameter?: string];

/** MCP tool annotations, compared by their effective values (an absent hint means MCP's default). */
export interface ToolHints {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What `tools/list` must say; every key is optional and tools are named without the prefix. */
export interface ListingExpectation {
  /** Exactly these tools are listed, and no others. */
  exactly?: readonly string[];
  /** Each of these tools is listed. */
  includes?: readonly string[];
  /**
   * Each tool is listed and its input schema requires exactly these parameters, in this order
   * (an absent `required` counts as `[]`); `undefined`: the schema has no `required` at all.
   */
  required?: Record<string, readonly string[] | undefined>;
  /** The tool's input schema has exactly these properties, in this order. */
  properties?: Record<string, readonly string[]>;
  /** The tool's input schema properties match these (as `toMatchObject`). */
  propertySchemas?: Record<string, Record<string, unknown>>;
  /** The tool's annotations have these effective values. */
  hints?: Record<string, ToolHints>;
}

/** The listed tools, for a file's own listing checks. */
export interface ListedTools {
  tools: Tool[];
  /** The listed tool of that name (without the prefix); fails the test when it is not listed. */
  get(tool: string): Tool;
}

/** How another host of the same suite differs from the main one (same plugin and upstream). */
export interface HostVariant {
  /** Replaces the main host's environment. */
  env?: Record<string, string>;
  /** Replaces the main host's `toolSetConfig`. */
  toolSetConfig?: ToolSetConfigOption;
}

/**
 * Tool-set settings besides `baseUrl` (which is always the upstream), or a function of the
 * upstream URL. The suite's hosts run without the plugin's pacing (`pacing: false`) unless these
 * set `pacing`: the suite checks what each call sends, and pacing would hold every call on one
 * base or connection for its slot (Airtable's 5 a second: 200 ms a test). Test pacing on its own.
 */
export type ToolSetConfigOption = ToolSetConfig | ((upstreamUrl: string) => ToolSetConfig);

export interface CatalogSuiteOptions<V extends string = never> {
  /** Plugin package to load, e.g. `@toolhost/plugin-grid`. */
  plugin: string;
  /** Tool set under test, e.g. `GridApi`; tools are called as `<toolSet>_<tool>`. */
  toolSet: string;
  /** Tool-set settings besides `baseUrl`, e.g. `baseUrls` or `settings` (`pacing`: see ToolSetConfigOption). */
  toolSetConfig?: ToolSetConfigOption;
  /** Environment of the host (e.g. the token variable). */
  env?: Record<string, string>;
  /** The Authorization header every request must carry, e.g. `Bearer <token>`. */
  authorization: string;
  /** Further headers every request must carry; `undefined`: the header must be absent. */
  headers?: Record<string, string | undefined>;
  /** Who the upstream stands for, in test names: "sends exactly the request HubSpot expects". */
  upstreamName?: string;
  /** The upstream's answer to every request (a JSON body); default 200 `{ ok: true }`. */
  response?: FakeResponse;
  /** Further hosts on the same upstream, by name (e.g. one without the secret). */
  variants?: Record<V, HostVariant>;
}

type CallResult = Awaited<ReturnType<SpawnedHost['client']['callTool']>>;

/** An upstream response as a tool result carries it: the body as JSON text, the status in `_meta`. */
export interface ToolResponse {
  status: number | undefined;
  body: unknown;
}

export interface CatalogSuite<V extends string = never> {
  /** The recording upstream (available from `beforeAll` on). */
  readonly upstream: RecordingUpstream;
  /** The main host (available from `beforeAll` on). */
  readonly host: SpawnedHost;
  /** A variant host (available from `beforeAll` on). */
  variant(name: V): SpawnedHost;
  /** The MCP name of a tool: `<toolSet>_<tool>`. */
  toolName(tool: string): string;
  /** Calls a tool (named without the prefix) on the main host or on a variant. */
  call(tool: string, args: ToolArgs, on?: V): Promise<CallResult>;
  /** The `structuredContent.error` of a failed call. */
  errorOf(result: unknown): ToolErrorInfo;
  /** Lists the tools of the main host. */
  listTools(): Promise<ListedTools>;
  /** A test that checks `tools/list` against `expected`, then runs `more` on the listing. */
  itListsTools(
    title: string,
    expected: ListingExpectation,
    more?: (listed: ListedTools) => void | Promise<void>,
  ): void;
  /**
   * One test per case: the call succeeds, passes the upstream's answer through, and sends exactly
   * one request with the case's method, path (and raw path), query and JSON body (with its
   * content type; no content type without a body), the suite's Authorization header and headers.
   */
  itSendsRequests(cases: readonly RequestCase[], title?: string): void;
  /**
   * One test per mode tool: `mode: get_request_schema` succeeds with `{ schema }` and sends nothing.
   * `title` is a template on the tool name (`%s`).
   */
  itReturnsRequestSchemas(schemas: Record<string, unknown>, options?: { title?: string; on?: V }): void;
  /** One test per row: an `invalid_argument` error matching the row, and nothing sent. */
  itRejectsBadInput(rows: readonly BadInput[], title?: string): void;
}

function resolveToolSetConfig(option: ToolSetConfigOption | undefined, url: string): ToolSetConfig {
  const rest = typeof option === 'function' ? option(url) : (option ?? {});
  return { baseUrl: url, pacing: false, ...rest };
}

/** The host's own tools listed beside every plugin's whenever a tool can write (write previews). */
export const HOST_WRITE_TOOLS: readonly string[] = ['preview_tool_call', 'apply_preview'];

/** A listing without the host's own tools: the plugin's tools alone. */
export function pluginToolsOf<T extends { name: string }>(tools: readonly T[]): T[] {
  return tools.filter((t) => !HOST_WRITE_TOOLS.includes(t.name));
}

/**
 * Starts the recording upstream and the hosts (`beforeAll`), closes them (`afterAll`), and
 * resets the recorded requests and the answer before every test.
 */
function startSuiteHosts<V extends string>(options: CatalogSuiteOptions<V>, response: FakeResponse) {
  let upstream: RecordingUpstream | undefined;
  let main: SpawnedHost | undefined;
  const variants = new Map<V, SpawnedHost>();
  const start = (url: string, variant: HostVariant = {}) =>
    spawnHost(
      {
        plugins: [options.plugin],
        toolSets: {
          [options.toolSet]: resolveToolSetConfig(variant.toolSetConfig ?? options.toolSetConfig, url),
        },
      },
      { env: variant.env ?? options.env ?? {} },
    );
  const current = () => {
    if (!upstream || !main) throw new Error('catalogSuite: the host is not started yet (use it in tests)');
    return { upstream, host: main };
  };

  beforeAll(async () => {
    upstream = await startRecordingUpstream();
    main = await start(upstream.url);
    for (const [name, variant] of Object.entries(options.variants ?? {}) as [V, HostVariant][]) {
      variants.set(name, await start(upstream.url, variant));
    }
  });
  afterAll(async () => {
    await main?.close();
    for (const h of variants.values()) await h.close();
    await upstream?.close();
  });
  beforeEach(() => {
    current().upstream.reset();
    current().upstream.respond(() => response);
  });

  return {
    current,
    variant(name: V): SpawnedHost {
      const h = variants.get(name);
      if (!h) throw new Error(`catalogSuite: no started variant '${name}'`);
      return h;
    },
  };
}

/**
 * The shared scaffolding of a plugin's catalog tests: starts a recording upstream and the real
 * host CLI against it, without the plugin's pacing (`beforeAll`), closes both (`afterAll`),
 * clears the recorded requests and sets the answer before every test (`beforeEach`), and
 * defines the standard tests: the listing, the exact request per tool, `get_request_schema`,
 * and bad input that never reaches the upstream. Call it at the top of a test file; use the `it…` methods inside `describe`s.
 */
export function catalogSuite<V extends string = never>(options: CatalogSuiteOptions<V>): CatalogSuite<V> {
  const response: FakeResponse = options.response ?? { status: 200, body: { ok: true } };
  const { current, variant } = startSuiteHosts(options, response);

  const toolName = (tool: string) => mcpToolName(`${options.toolSet}.${tool}`);
  const hostOf = (on?: V) => (on === undefined ? current().host : suite.variant(on));

  const suite: CatalogSuite<V> = {
    get upstream() {
      return current().upstream;
    },
    get host() {
      return current().host;
    },
    variant,
    toolName,
    call: (tool, args, on) => hostOf(on).client.callTool({ name: toolName(tool), arguments: args }),
    errorOf: (result) => (result as { structuredContent: { error: ToolErrorInfo } }).structuredContent.error,

    async listTools() {
      const tools = pluginToolsOf((await current().host.client.listTools()).tools);
      const byName = new Map(tools.map((t) => [t.name, t]));
      return {
        tools,
        get(tool) {
          const listed = byName.get(toolName(tool));
          expect(listed, `${tool} is listed`).toBeDefined();
          return listed!;
        },
      };
    },

    ...standardTests(() => suite, { options, response, current, hostOf }),
  };
  return suite;
}
