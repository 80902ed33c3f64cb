import type { Tool } from '@modelcontextprotocol/client';
import { effectiveAnnotations, expandSchemaReferences, STATUS_META_KEY } from '@toolhost/host';
import { expect, it } from 'vitest';
import type {
  CatalogSuite,
  CatalogSuiteOptions,
  ListedTools,
  ListingExpectation,
  RequestCase,
  ToolHints,
  ToolResponse,
} from './catalog-suite.js';
import type { FakeResponse, RecordedRequest, RecordingUpstream } from './recording-upstream.js';
import type { SpawnedHost } from './spawn-host.js';

// The standard tests every plugin's catalog runs (listing, exact requests, request schemas, bad
// input) and the expectations they assert, apart from the hosts the suite starts for them.

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

/** The effective value of each hint: an absent hint reads as MCP's default (the host's own rule). */
export function effectiveHints(annotations: ToolHints | undefined): Required<ToolHints> {
  return effectiveAnnotations(annotations);
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
  // A request without a body names no content type (a bodiless POST is not a form).
  expect(req.headers['content-type'], 'content-type').toBe(
    c.body === undefined ? undefined : 'application/json',
  );
}

/** What the standard tests need of their suite: its options, the upstream's answer, its hosts. */
interface SuiteContext<V extends string> {
  options: CatalogSuiteOptions<V>;
  response: FakeResponse;
  current: () => { host: SpawnedHost; upstream: RecordingUpstream };
  hostOf: (on?: V) => SpawnedHost;
}

type StandardTests<V extends string> = Pick<
  CatalogSuite<V>,
  'itListsTools' | 'itSendsRequests' | 'itReturnsRequestSchemas' | 'itRejectsBadInput'
>;

/** The standard tests of a catalog: the listing, exact requests, request schemas, bad input. */
export function standardTests<V extends string>(
  self: () => CatalogSuite<V>,
  context: SuiteContext<V>,
): StandardTests<V> {
  const { options, response, current, hostOf } = context;
  const toolName = (tool: string) => self().toolName(tool);
  return {
    itListsTools(title, expected, more) {
      it(title, async () => {
        const listed = await self().listTools();
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
        const result = await self().call(c.tool, c.args);
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
          const result = await self().call(tool, { mode: 'get_request_schema' }, on);
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
        const result = await self().call(tool, args);
        expect(result.isError).toBe(true);
        expect(self().errorOf(result)).toMatchObject({
          code: 'invalid_argument',
          message: expect.stringMatching(pattern),
          ...(parameter === undefined ? {} : { parameter }),
        });
        expect(current().upstream.requests).toHaveLength(0);
      });
    },
  };
}
