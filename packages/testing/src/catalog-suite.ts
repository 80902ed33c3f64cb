import type { Tool } from '@modelcontextprotocol/client';
import type { ToolErrorInfo } from '@toolhost/core';
import {
  effectiveAnnotations,
  expandSchemaReferences,
  mcpToolName,
  STATUS_META_KEY,
  type ToolSetConfig,
} from '@toolhost/host';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import {
  type FakeResponse,
  type RecordedRequest,
  type RecordingUpstream,
  startRecordingUpstream,
} from './recording-upstream.js';
import { type SpawnedHost, spawnHost } from './spawn-host.js';

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

/** Tool-set settings besides `baseUrl` (which is always the upstream), or a function of the upstream URL. */
export type ToolSetConfigOption = ToolSetConfig | ((upstreamUrl: string) => ToolSetConfig);

export interface CatalogSuiteOptions<V extends string = never> {
  /** Plugin package to load, e.g. `@toolhost/plugin-grid`. */
  plugin: string;
  /** Tool set under test, e.g. `GridApi`; tools are called as `<toolSet>_<tool>`. */
  toolSet: string;
  /** Tool-set settings besides `baseUrl`, e.g. `baseUrls` or `settings`. */
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

/**
 * The whole text of a tool result: its text content or, where the result was over the size
 * budget, the linked resource read back as a client would.
 */
export async function resultText(client: SpawnedHost['client'], result: unknown): Promise<string> {
  const content = (result as { content?: { type: string; text?: string; uri?: string }[] }).content ?? [];
  const link = content.find((c) => c.type === 'resource_link');
  if (link?.uri) {
    const read = await client.readResource({ uri: link.uri });
    const first = read.contents[0] as { text?: string } | undefined;
    return first?.text ?? '';
  }
  return content.find((c) => c.type === 'text')?.text ?? '';
}

/** The upstream response a successful tool result carries (a 204 has body null). */
export async function responseOf(client: SpawnedHost['client'], result: unknown): Promise<ToolResponse> {
  const status = (result as { _meta?: Record<string, unknown> })._meta?.[STATUS_META_KEY] as
    | number
    | undefined;
  const text = await resultText(client, result);
  return { status, body: /^HTTP \d{3} \(no content\)$/.test(text) ? null : JSON.parse(text) };
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
   * content type), the suite's Authorization header and headers.
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

/** The effective value of each hint: an absent hint reads as MCP's default (the host's own rule). */
export function effectiveHints(annotations: ToolHints | undefined): Required<ToolHints> {
  return effectiveAnnotations(annotations);
}

function resolveToolSetConfig(option: ToolSetConfigOption | undefined, url: string): ToolSetConfig {
  const rest = typeof option === 'function' ? option(url) : (option ?? {});
  return { baseUrl: url, ...rest };
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

/** `tools/list` as the expectation describes it: names, required and listed parameters, schemas, hints. */
function expectListing(
  listed: ListedTools,
  expected: ListingExpectation,
  toolName: (tool: string) => string,
) {
  expectTopLevelObjects(listed.tools);
  if (expected.exactly) {
    expect(listed.tools.map((t) => t.name).sort()).toEqual(expected.exactly.map(toolName).sort());
  }
  for (const tool of expected.includes ?? []) listed.get(tool);
  for (const [tool, names] of Object.entries(expected.required ?? {})) {
    const required = listed.get(tool).inputSchema.required;
    if (names === undefined) expect(required, tool).toBeUndefined();
    else expect(required ?? [], tool).toEqual(names);
  }
  for (const [tool, names] of Object.entries(expected.properties ?? {})) {
    expect(Object.keys(listed.get(tool).inputSchema.properties ?? {}), tool).toEqual(names);
  }
  for (const [tool, fragment] of Object.entries(expected.propertySchemas ?? {})) {
    expect(listed.get(tool).inputSchema.properties ?? {}, tool).toMatchObject(fragment);
  }
  for (const [tool, hints] of Object.entries(expected.hints ?? {})) {
    expect(effectiveHints(listed.get(tool).annotations), tool).toMatchObject(hints);
  }
}

/**
 * Every input schema is a plain object schema at the top: the model APIs agents run on refuse a
 * tool list in which any tool's schema combines alternatives there (Anthropic: "input_schema
 * does not support oneOf, allOf, or anyOf at the top level").
 */
function expectTopLevelObjects(tools: readonly Tool[]) {
  for (const t of tools) {
    const schema = t.inputSchema as Record<string, unknown>;
    expect(schema.type, t.name).toBe('object');
    for (const keyword of ['anyOf', 'oneOf', 'allOf', 'not', 'enum', 'dependencies', 'if']) {
      expect(schema, `${t.name} has no top-level ${keyword}`).not.toHaveProperty(keyword);
    }
  }
}

/** Exactly one request, with the case's method, path, query and body and the suite's headers. */
function expectExactRequest(
  requests: readonly RecordedRequest[],
  c: RequestCase,
  options: Pick<CatalogSuiteOptions<string>, 'authorization' | 'headers'>,
) {
  expect(requests).toHaveLength(1);
  const req = requests[0]!;
  expect(req.method).toBe(c.method);
  expect(req.path).toBe(c.path);
  if (c.rawPath !== undefined) expect(req.rawPath).toBe(c.rawPath);
  expect(req.query).toEqual(c.query ?? []);
  expect(req.headers.authorization).toBe(options.authorization);
  for (const [header, value] of Object.entries(options.headers ?? {})) {
    if (value === undefined) expect(req.headers).not.toHaveProperty(header);
    else expect(req.headers[header], header).toBe(value);
  }
  expect(req.body).toEqual(c.body);
  if (c.body !== undefined) expect(req.headers['content-type']).toBe('application/json');
}

/**
 * The shared scaffolding of a plugin's catalog tests: starts a recording upstream and the real
 * host CLI against it (`beforeAll`), closes both (`afterAll`), clears the recorded requests and
 * sets the answer before every test (`beforeEach`), and defines the standard tests: the
 * listing, the exact request per tool, `get_request_schema`, and bad input that never reaches
 * the upstream. Call it at the top of a test file; use the `it…` methods inside `describe`s.
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

    itListsTools(title, expected, more) {
      it(title, async () => {
        const listed = await suite.listTools();
        expectListing(listed, expected, toolName);
        await more?.(listed);
      });
    },

    itSendsRequests(cases, title) {
      const labelled = cases.some((c) => c.label !== undefined);
      const rows = cases.map((c) => ({ label: '', ...c }));
      const name =
        title ??
        `$tool ${labelled ? '$label ' : ''}sends exactly the request ${options.upstreamName ?? 'the upstream'} expects`;
      it.each(rows)(name, async (c) => {
        const result = await suite.call(c.tool, c.args);
        expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
        expect(await responseOf(current().host.client, result)).toEqual({
          status: response.status ?? 200,
          body: response.body,
        });
        expectExactRequest(current().upstream.requests, c, options);
      });
    },

    itReturnsRequestSchemas(schemas, { title, on } = {}) {
      it.each(Object.entries(schemas))(
        title ?? '%s get_request_schema returns the body schema and sends nothing',
        async (tool, schema) => {
          const result = await suite.call(tool, { mode: 'get_request_schema' }, on);
          expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
          // A large schema arrives compacted ($defs and $ref): the same schema, written out.
          expect(expandSchemaReferences(JSON.parse(await resultText(hostOf(on).client, result)))).toEqual(
            schema,
          );
          expect(current().upstream.requests).toHaveLength(0);
        },
      );
    },

    itRejectsBadInput(rows, title = '%s is a clear invalid_argument error') {
      it.each(rows)(title, async (_label, tool, args, pattern, parameter) => {
        const result = await suite.call(tool, args);
        expect(result.isError).toBe(true);
        expect(suite.errorOf(result)).toMatchObject({
          code: 'invalid_argument',
          message: expect.stringMatching(pattern),
          ...(parameter === undefined ? {} : { parameter }),
        });
        expect(current().upstream.requests).toHaveLength(0);
      });
    },
  };
  return suite;
}
