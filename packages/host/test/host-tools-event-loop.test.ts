import type { Tool } from '@modelcontextprotocol/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { type HttpHostProcess, REPOSITORY_PLUGINS, spawnHttpHost, startEventLoopHold } from './support.js';

// A request of the largest size each host tool accepts (by its listed schema, else the body
// limit) must not hold the host's event loop: the host's own longest hold while it works on
// them (startEventLoopHold: its longest event-loop delay, less its waits for a CPU) stays under
// a second, and meanwhile another client's /healthz and plugin tool call are answered.
const BODY_LIMIT = 4 * 1024 * 1024;
// The words of real requests, which the search matches against many terms (its costly case).
const WORDS =
  'list records airtable table status done contact email marketing event workflow pipeline segment customer person update delete create batch archive'.split(
    ' ',
  );

let upstream: RecordingUpstream;
let served: HttpHostProcess;
let heavy: Client;
let heavyTransport: StreamableHTTPClientTransport;
let probe: Client;
let tools: Tool[];

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'event-loop', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

beforeAll(async () => {
  upstream = await startRecordingUpstream(() => ({ status: 200, body: { bases: [] } }));
  served = await spawnHttpHost(
    {
      plugins: [...REPOSITORY_PLUGINS],
      mcp: { catalog: 'dynamic' },
      toolSets: { GridApi: { baseUrl: upstream.url, pacing: false } },
    },
    { GRID_AUTH_PROVIDER_TOKEN: 'grid-token-0123456789' },
  );
  heavy = new Client({ name: 'event-loop-heavy', version: '0' });
  heavyTransport = new StreamableHTTPClientTransport(new URL(served.url));
  await heavy.connect(heavyTransport);
  probe = await connect(served.url);
  ({ tools } = await heavy.listTools());
  // What a host loads once, at its first search, call and preview (the index, the HTTP
  // client, the metrics, write safety), is not what this measures.
  await heavy.callTool({ name: 'search_tools', arguments: { query: 'list bases' } });
  await probe.callTool({ name: 'call_tool', arguments: { name: 'GridApi_ListGridBases', arguments: {} } });
  const preview = await probe.callTool({
    name: 'preview_tool_call',
    arguments: { name: 'GridApi_DeleteGridBase', arguments: { base_id: 'appWarmUp000000' } },
  });
  expect(preview.isError, JSON.stringify(preview.content)).toBeFalsy();
}, 60_000);
afterAll(async () => {
  await heavy?.close();
  await probe?.close();
  served?.child.kill();
  await upstream?.close();
});

type Bounded = { maxLength?: number; maxItems?: number; items?: Bounded };
const schemaOf = (tool: string, property: string) =>
  tools.find((t) => t.name === tool)?.inputSchema.properties?.[property] as Bounded | undefined;

/** The largest string a property accepts: its maxLength, else what fits in the body limit. */
function longest(tool: string, property: string, fill: (n: number) => string): string {
  return fill(schemaOf(tool, property)?.maxLength ?? BODY_LIMIT - 4096);
}

/** The longest list of the longest strings a property accepts, within the body limit. */
function longestList(tool: string, property: string): string[] {
  const schema = schemaOf(tool, property);
  const items = schema?.maxItems ?? 1000;
  const each = Math.min(
    schema?.items?.maxLength ?? Number.POSITIVE_INFINITY,
    Math.floor((BODY_LIMIT - 4096) / items) - 8,
  );
  return Array.from({ length: items }, (_, i) => `${i}${padding(each - String(i).length)}`);
}

const words = (n: number) => {
  let text = '';
  for (let i = 0; text.length < n; i += 1) text += `${WORDS[i % WORDS.length]}${i % 7} `;
  return text.slice(0, n);
};
const padding = (n: number) => 'y'.repeat(n);

/** Calls a plugin tool and /healthz every 100 ms until `done`; the slowest answer of each, in ms. */
async function probeWhile(done: Promise<unknown>): Promise<{ health: number; call: number; rounds: number }> {
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  const slowest = { health: 0, call: 0, rounds: 0 };
  const health = new URL('/healthz', served.url);
  while (!finished) {
    const started = performance.now();
    const [h, c] = await Promise.all([
      fetch(health).then(async (r) => {
        await r.text();
        return performance.now() - started;
      }),
      probe
        .callTool({ name: 'call_tool', arguments: { name: 'GridApi_ListGridBases', arguments: {} } })
        .then(() => performance.now() - started),
    ]);
    slowest.health = Math.max(slowest.health, h);
    slowest.call = Math.max(slowest.call, c);
    slowest.rounds += 1;
    await new Promise((r) => setTimeout(r, 100));
  }
  return slowest;
}

/**
 * Sends one tools/call on the heavy client's session as raw JSON, serialized once: the SDK
 * client would validate and serialize megabytes per request in this process, whose event loop
 * also times the probes.
 */
function rawCall(body: string): Promise<{ status: number; text: string }> {
  return fetch(served.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': heavyTransport.sessionId!,
      'mcp-protocol-version': heavyTransport.protocolVersion ?? '2025-06-18',
    },
    body,
  }).then(async (r) => ({ status: r.status, text: await r.text() }));
}

describe('the largest request to each host tool', () => {
  const requests: [string, () => Record<string, unknown>][] = [
    ['search_tools', () => ({ query: longest('search_tools', 'query', words), limit: 25 })],
    ['describe_tools', () => ({ names: longestList('describe_tools', 'names') })],
    [
      'call_tool',
      () => ({
        name: 'GridApi_ListGridBases',
        arguments: { pagination_offset: 'itr1', padding: padding(BODY_LIMIT - 4096) },
      }),
    ],
    [
      'preview_tool_call',
      () => ({ name: 'GridApi_DeleteGridBase', arguments: { base_id: padding(BODY_LIMIT - 4096) } }),
    ],
    ['apply_preview', () => ({ preview_id: longest('apply_preview', 'preview_id', padding) })],
  ];
  for (const [tool, args] of requests) {
    it(`${tool}: /healthz and another client's call are answered meanwhile`, async () => {
      const params = JSON.stringify({ name: tool, arguments: args() });
      let id = 0;
      // Each request its own id: a session refuses one still in use.
      const call = () => {
        id += 1;
        return rawCall(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${params}}`);
      };
      const held = await startEventLoopHold(served);
      // One after another, so that the probe runs while each is being worked on.
      const calls = (async () => {
        const answers = [];
        for (let round = 0; round < 3; round += 1) answers.push(await call());
        return answers;
      })();
      const slowest = await probeWhile(calls);
      for (const answer of await calls) {
        expect(answer.status, answer.text.slice(0, 300)).toBe(200);
        expect(answer.text).toContain('"result"');
      }
      const { delay, share, hold } = await held();
      expect(slowest.rounds, 'probe rounds answered while the calls ran').toBeGreaterThan(0);
      expect(
        hold,
        `the host's longest hold on its event loop, s (a delay of ${delay} s at ${share.toFixed(2)} of its runnable time on a CPU; slowest /healthz ${Math.round(slowest.health)} ms, other client's call ${Math.round(slowest.call)} ms)`,
      ).toBeLessThan(1);
    }, 120_000);
  }
});
