import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import {
  type RecordingUpstream,
  resultText,
  type SpawnedHost,
  spawnHost,
  startRecordingUpstream,
} from '@toolhost/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TOKEN } from './suite-options.js';

// Airtable allows 5 requests per second per base; the plugin paces by the `baseId` parameter
// and, on 429, waits as asked (Retry-After) and retries once. These tests check that behaviour
// from what the upstream saw: order and arrival times (lower bounds only, less a slack that
// covers how late this busy process may stamp an arrival, so a loaded machine does not fail them).

const TBL = 'tblK1l2M3n4O5p6Q7';
const REC = 'recR1s2T3u4V5w6X7';

/** Slack subtracted from every time bound, for arrival jitter between the two processes. */
const MARGIN_MS = 150;

/**
 * The upstream stamps an arrival when its handler runs, on this process's event loop: a stall
 * of that loop bunches the stamps after it by up to its length. The slack is the larger of
 * MARGIN_MS and the worst stall since the test began; the pacer's promise (5 a second) stays.
 */
let stalls: IntervalHistogram;
const slackMs = () => Math.max(MARGIN_MS, stalls.max / 1e6);

interface Arrival {
  base: string;
  at: number;
}

let upstream: RecordingUpstream;
let host: SpawnedHost;
let arrivals: Arrival[];

/** The base id a recorded path addresses (`/{baseId}/...` or `/content/{baseId}/...`). */
function baseOf(path: string): string {
  const segments = path.split('/').filter(Boolean);
  return segments[0] === 'content' ? segments[1]! : segments[0]!;
}

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  host = await spawnHost(
    {
      plugins: ['@toolhost/plugin-grid'],
      toolSets: { GridApi: { baseUrl: upstream.url, baseUrls: { content: `${upstream.url}/content` } } },
    },
    { env: { GRID_AUTH_PROVIDER_TOKEN: TOKEN } },
  );
  // The host loads its HTTP client on the first call; a first request delayed by that would
  // make the burst's arrivals look closer together than the pacer let them go.
  upstream.respond(() => ({ status: 200, body: { records: [] } }));
  await host.client.callTool({
    name: 'GridApi_ListGridRecords',
    arguments: { base_id: 'appWarmUp000000000', table_id_or_name: TBL },
  });
});
afterAll(async () => {
  await host?.close();
  await upstream?.close();
});
beforeEach(() => {
  stalls = monitorEventLoopDelay({ resolution: 5 });
  stalls.enable();
  upstream.reset();
  arrivals = [];
  upstream.respond((req) => {
    arrivals.push({ base: baseOf(req.path), at: Date.now() });
    return { status: 200, body: { records: [] } };
  });
});

afterEach(() => {
  stalls.disable();
});

const call = (tool: string, args: Record<string, unknown>) =>
  host.client.callTool({ name: `GridApi_${tool}`, arguments: args });
const listRecords = (base: string) => call('ListGridRecords', { base_id: base, table_id_or_name: TBL });
const timesOf = (base: string) => arrivals.filter((a) => a.base === base).map((a) => a.at);

/** Every run of 6 consecutive requests spans at least a second (minus the margin): at most 5 per second. */
function expectAtMostFivePerSecond(times: number[]): void {
  const sorted = [...times].sort((a, b) => a - b);
  for (let i = 0; i + 5 < sorted.length; i += 1) {
    expect(sorted[i + 5]! - sorted[i]!, `requests ${i}..${i + 5}`).toBeGreaterThanOrEqual(1000 - slackMs());
  }
}

describe('GridApi pacing per base', () => {
  it('spreads a burst of 12 calls on one base to 5 per second; all succeed; another base is not held', async () => {
    const burstBase = 'appBurst0000000001';
    const otherBase = 'appOther0000000002';
    const burst = Array.from({ length: 12 }, () => listRecords(burstBase));
    const other = [listRecords(otherBase), listRecords(otherBase)];
    const results = await Promise.all([...burst, ...other]);

    for (const r of results) expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    expect(upstream.requests).toHaveLength(14);
    const burstTimes = timesOf(burstBase);
    expect(burstTimes).toHaveLength(12);
    expectAtMostFivePerSecond(burstTimes);

    // The other base has its own bucket: both of its calls go out before the burst's 6th,
    // which the pacer holds back by about a second.
    const sixth = [...burstTimes].sort((a, b) => a - b)[5]!;
    const order = upstream.requests.map((r) => baseOf(r.path));
    const sixthIndex = order.map((b, i) => (b === burstBase ? i : -1)).filter((i) => i >= 0)[5]!;
    for (const at of timesOf(otherBase)) expect(at).toBeLessThan(sixth);
    expect(order.lastIndexOf(otherBase)).toBeLessThan(sixthIndex);
  });

  it('paces one base across tools, mode tools and the content server alike', async () => {
    const base = 'appMixed0000000003';
    const body = (value: unknown) => ({ mode: 'execute', request_body: JSON.stringify(value) });
    const calls = [
      listRecords(base),
      call('GridGetRecord', { grid_base_id: base, record_id: REC, table_identifier: TBL }),
      call('CreateGridRecords', {
        ...body({ fields: { Name: 'Ada' } }),
        base_id: base,
        table_id_or_name: TBL,
      }),
      call('UploadAttachmentToGrid', {
        ...body({ contentType: 'text/plain', file: 'aGk=', filename: 'hi.txt' }),
        grid_base_id: base,
        grid_record_id: REC,
        attachment_field_id_or_name: 'Files',
      }),
      call('GetRecordComments', { base_id: base, record_id: REC, table_identifier: TBL }),
      call('AddRecordComment', {
        ...body({ text: 'hi' }),
        base_identifier: base,
        table_identifier: TBL,
        record_identifier: REC,
      }),
      call('DeleteGridRecord', { grid_base_id: base, record_id: REC, table_identifier: TBL }),
    ];
    const results = await Promise.all(calls);
    for (const r of results) expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    const times = timesOf(base);
    expect(times).toHaveLength(7);
    expectAtMostFivePerSecond(times);
  });
});

describe('GridApi retry after 429', () => {
  it('waits as Retry-After asks, retries exactly once and succeeds', async () => {
    const base = 'appRetry0000000004';
    upstream.respond((req) => {
      arrivals.push({ base: baseOf(req.path), at: Date.now() });
      return arrivals.length === 1
        ? {
            status: 429,
            headers: { 'retry-after': '1' },
            body: { errors: [{ error: 'RATE_LIMIT_REACHED' }] },
          }
        : { status: 200, body: { records: [{ id: REC }] } };
    });
    const result = await call('ListGridRecords', {
      base_id: base,
      table_id_or_name: TBL,
      specific_fields: 'Name',
    });

    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(await resultText(host.client, result)).toContain(REC);
    expect(upstream.requests).toHaveLength(2);
    const [first, second] = upstream.requests;
    expect(second!.method).toBe(first!.method);
    expect(second!.path).toBe(`/${base}/${TBL}`);
    expect(second!.path).toBe(first!.path);
    expect(second!.query).toEqual(first!.query);
    expect(second!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const [t1, t2] = timesOf(base);
    expect(t2! - t1!).toBeGreaterThanOrEqual(1000 - slackMs());
  });

  it('does not retry a second time: a repeated 429 is returned as a rate-limit error', async () => {
    const base = 'appRetry0000000005';
    upstream.respond(() => ({
      status: 429,
      headers: { 'retry-after': '1' },
      body: { errors: [{ error: 'RATE_LIMIT_REACHED' }] },
    }));
    const result = await call('DeleteGridRecord', {
      grid_base_id: base,
      record_id: REC,
      table_identifier: TBL,
    });

    expect(result.isError).toBe(true);
    expect((result.structuredContent as { error: Record<string, unknown> }).error).toMatchObject({
      code: 'upstream_rate_limited',
      status: 429,
      retryable: true,
    });
    expect(upstream.requests).toHaveLength(2);
    expect(upstream.requests.every((r) => r.method === 'DELETE' && r.path === `/${base}/${TBL}/${REC}`)).toBe(
      true,
    );
  });
});
