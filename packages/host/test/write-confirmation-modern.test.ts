import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { AccessTokens } from '../src/auth/access-tokens.js';
import type { Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { AGREE, type ModernRetry, postModernCall, writeHost } from './write-support.js';

// Write confirmation on MCP 2026-07-28, which has no server-to-client requests: the call answers
// input_required with the question and a signed requestState, and the retry carries the answer.
const ALICE = 'alice-token-0123456789';
const BOB = 'bob-token-0123456789xx';
let upstream: RecordingUpstream;
let host: Host;
let server: HttpServerHandle;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  host = await writeHost(upstream.url, { tools: { confirmWrites: true } });
  server = await serveHttp(host, { port: 0, accessTokens: new AccessTokens({ alice: ALICE, bob: BOB }) });
});
afterAll(async () => {
  await server.close();
  await host.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.reset();
  upstream.respond(() => ({ status: 200, body: { ok: true } }));
});

const update = { id: 'thing-1', notify: false, title: 'Renamed' };

interface Answer {
  status: number;
  body: {
    id: number;
    result?: {
      resultType?: string;
      isError?: boolean;
      inputRequests?: Record<string, { method: string; params: { message: string } }>;
      requestState?: string;
      content?: { text: string }[];
    };
    error?: { code: number; message: string };
  };
}

/** A 2026-07-28 tools/call of WriteApi_UpdateThing by hand. */
async function call(args: Record<string, unknown>, token = ALICE, retry: ModernRetry = {}): Promise<Answer> {
  const res = await postModernCall(server.url, { token, name: 'WriteApi_UpdateThing', args, retry });
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

describe('write confirmation on MCP 2026-07-28 (input_required)', () => {
  it('asks with the exact request and a signed state, sending nothing until the person agrees', async () => {
    const asked = await call(update);
    expect(asked.body.result?.resultType).toBe('input_required');
    const question = asked.body.result?.inputRequests?.confirm;
    expect(question?.method).toBe('elicitation/create');
    expect(question?.params.message).toContain(`PATCH ${upstream.url}/things/thing-1?notify=false`);
    expect(question?.params.message).toContain('authorization: [redacted]');
    expect(upstream.requests).toHaveLength(0);

    const sent = await call(update, ALICE, {
      requestState: asked.body.result!.requestState!,
      inputResponses: AGREE,
    });
    expect(sent.body.result?.resultType).toBe('complete');
    expect(sent.body.result?.isError).toBeFalsy();
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]!.method).toBe('PATCH');
  });

  it('sends nothing when the person declines', async () => {
    const asked = await call(update);
    const declined = await call(update, ALICE, {
      requestState: asked.body.result!.requestState!,
      inputResponses: { confirm: { action: 'decline' } },
    });
    expect(declined.body.result?.isError).toBe(true);
    expect(declined.body.result?.content?.[0]?.text).toMatch(/cancelled/);
    expect(upstream.requests).toHaveLength(0);
  });

  it('refuses a tampered, other-user or other-call state, sending nothing', async () => {
    const state = (await call(update)).body.result!.requestState!;
    const [head, body, mac] = state.split('.');
    const payload = JSON.parse(Buffer.from(body!, 'base64url').toString());
    payload.p.d = 'another-digest';
    const tampered = [head, Buffer.from(JSON.stringify(payload)).toString('base64url'), mac].join('.');
    const refusals = [
      await call(update, ALICE, { requestState: tampered, inputResponses: AGREE }),
      await call(update, BOB, { requestState: state, inputResponses: AGREE }),
      await call({ ...update, title: 'Other' }, ALICE, { requestState: state, inputResponses: AGREE }),
    ];
    for (const r of refusals) expect(r.body.error?.code).toBe(-32602);
    expect(upstream.requests).toHaveLength(0);
    // Still unused: it sends once.
    expect(
      (await call(update, ALICE, { requestState: state, inputResponses: AGREE })).body.result?.isError,
    ).toBeFalsy();
    expect(upstream.requests).toHaveLength(1);
  });

  it('answers the same state again (an answer the client lost) with the first outcome, sending once', async () => {
    let served = 0;
    upstream.respond(() => ({ status: 200, body: { n: ++served } }));
    const state = (await call(update)).body.result!.requestState!;
    const first = await call(update, ALICE, { requestState: state, inputResponses: AGREE });
    expect(first.body.result?.isError).toBeFalsy();
    expect(first.body.result?.content?.[0]?.text).toContain('"n":1');
    const again = await Promise.all(
      [0, 1, 2].map(() => call(update, ALICE, { requestState: state, inputResponses: AGREE })),
    );
    for (const a of again) expect(a.body.result).toEqual(first.body.result);
    expect(upstream.requests).toHaveLength(1);
    // Another user cannot read it with the state; a new question is a new call.
    expect((await call(update, BOB, { requestState: state, inputResponses: AGREE })).body.error?.code).toBe(
      -32602,
    );
    const next = (await call(update)).body.result!.requestState!;
    expect(
      (await call(update, ALICE, { requestState: next, inputResponses: AGREE })).body.result?.content?.[0]
        ?.text,
    ).toContain('"n":2');
    expect(upstream.requests).toHaveLength(2);
  });

  it('refuses an expired state', async () => {
    const state = (await call(update)).body.result!.requestState!;
    const realNow = Date.now;
    Date.now = () => realNow() + 11 * 60_000;
    try {
      const expired = await call(update, ALICE, { requestState: state, inputResponses: AGREE });
      expect(expired.body.error?.code).toBe(-32602);
    } finally {
      Date.now = realNow;
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it('completes through the v2 client negotiating 2026-07-28, which asks the person itself', async () => {
    const client = new Client(
      { name: 'v2', version: '0' },
      { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
    );
    const shown: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      shown.push((request.params as { message: string }).message);
      return { action: 'accept', content: { send: true } };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
      }),
    );
    expect(client.getProtocolEra()).toBe('modern');
    const result = await client.callTool({ name: 'WriteApi_UpdateThing', arguments: update });
    expect(result.isError).toBeFalsy();
    expect(shown).toHaveLength(1);
    expect(upstream.requests).toHaveLength(1);
    await client.close();
  });
});
