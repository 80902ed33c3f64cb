import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseOf } from '../../testing/src/catalog-suite.js';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { type ServedHttpHost, serveHttpHost } from './served-http-host.js';

// A result over the size budget, over Streamable HTTP with two users: a summary within the
// budget, and a resource link that only the caller can read back in full.
const TOKENS = { alice: 'alice-token-0123456789', bob: 'bob-token-0123456789ab' };
const MAX = 6000;
const bigBody = {
  items: Array.from({ length: 4000 }, (_, i) => ({ id: `item-${i}`, label: `Item number ${i}` })),
  next: 'cursor-2',
};

let upstream: RecordingUpstream;
let host: ServedHttpHost;

beforeAll(async () => {
  upstream = await startRecordingUpstream((req) =>
    req.path.endsWith('/big') ? { status: 200, body: bigBody } : { status: 200, body: { path: req.path } },
  );
  host = await serveHttpHost(
    {
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl: upstream.url } },
      http: { accessTokens: TOKENS },
      mcp: { maxResultBytes: MAX, resultTtlSeconds: 600 },
    },
    { ECHO_AUTH_TOKEN: 'tok-http' },
  );
});

afterAll(async () => {
  await host.close();
  await upstream.close();
});

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'results-test', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(host.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

describe('results over the size budget', () => {
  it('sends a small body once, as text, with the status beside it', async () => {
    const alice = await connect(TOKENS.alice);
    const result = await alice.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: 'small' } });
    expect(result.structuredContent).toBeUndefined();
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify({ path: '/items/small' }) }]);
    expect(await responseOf(alice, result)).toEqual({ status: 200, body: { path: '/items/small' } });
    await alice.close();
  });

  it('answers a summary within the budget and links the whole body, readable by the caller only', async () => {
    const alice = await connect(TOKENS.alice);
    const bob = await connect(TOKENS.bob);
    const result = await alice.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: 'big' } });
    expect(result.isError).toBeFalsy();
    const content = result.content as { type: string; text?: string; uri?: string }[];
    expect(content.map((c) => c.type)).toEqual(['text', 'resource_link']);
    expect(Buffer.byteLength(content[0]!.text!)).toBeLessThanOrEqual(MAX);
    const summary = JSON.parse(content[0]!.text!);
    expect(summary).toMatchObject({
      truncated: true,
      status: 200,
      bytes: Buffer.byteLength(JSON.stringify(bigBody)),
      shape: { items: 'array(4000)', next: 'string' },
      items: { path: 'items', total: 4000 },
      nextPage: { cursor: 'cursor-2', from: 'next' },
    });
    expect(summary.items.first[0]).toEqual(bigBody.items[0]);

    const uri = content[1]!.uri!;
    const read = await alice.readResource({ uri });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual(bigBody);
    expect((await alice.listResources()).resources.map((r) => r.uri)).toContain(uri);

    await expect(bob.readResource({ uri })).rejects.toThrow(/Resource not found/);
    expect((await bob.listResources()).resources.map((r) => r.uri)).not.toContain(uri);
    // Another session of the same user reads it: the result belongs to the user, not the session.
    const alice2 = await connect(TOKENS.alice);
    expect((await alice2.readResource({ uri })).contents).toHaveLength(1);
    await Promise.all([alice.close(), alice2.close(), bob.close()]);
  });
});
