import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { createHost, type Host } from '../src/host.js';
import { inlinePlugin } from './support.js';

let upstream: RecordingUpstream;
let host: Host;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  host = await createHost(
    { toolSets: { Limited: { baseUrl: upstream.url } }, engine: { maxRateLimitWaitSeconds: 2 } },
    {
      plugins: [
        inlinePlugin('Limited', [
          {
            name: 'Get',
            description: 'Gets a thing.',
            method: 'GET',
            path: '/things',
            auth: { kind: 'none' },
            hints: { readOnly: true },
          },
        ]),
      ],
      env: {},
    },
  );
});
afterAll(async () => {
  await host.close();
  await upstream.close();
});
beforeEach(() => upstream.reset());

const limitedWith = (retryAfter: string) =>
  upstream.respond(() => ({
    status: 429,
    headers: { 'retry-after': retryAfter },
    body: { message: 'slow down' },
  }));

describe('a 429 whose Retry-After is not one', () => {
  // Date.parse reads almost anything as a date (`-5` and `5, 10` as days in 2001), which made
  // them a wait of 0 s: an immediate retry, and the agent told to retry at once.
  for (const retryAfter of ['-5', 'soon', '5 minutes']) {
    it(`is a 429 that said nothing about when: no retry, no wait told (${retryAfter})`, async () => {
      limitedWith(retryAfter);
      const outcome = await host.callTool('Limited.Get', {});
      expect(outcome).toMatchObject({ ok: false, error: { code: 'upstream_rate_limited' } });
      expect(outcome.ok ? undefined : outcome.error.retryAfterSeconds).toBeUndefined();
      expect(upstream.requests).toHaveLength(1);
    });
  }

  it('takes the longest of the waits a header sent twice asks for (joined as `5, 10`)', async () => {
    limitedWith('5, 10');
    const outcome = await host.callTool('Limited.Get', {});
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'upstream_rate_limited', retryAfterSeconds: 10 },
    });
    expect(upstream.requests).toHaveLength(1);
  });

  it('still reads an HTTP date, in any of its three forms', async () => {
    const inFiveSeconds = new Date(Date.now() + 5000);
    const [day, , month, year, time] = inFiveSeconds.toUTCString().split(' ') as string[];
    const weekday = {
      Sun: 'Sunday',
      Mon: 'Monday',
      Tue: 'Tuesday',
      Wed: 'Wednesday',
      Thu: 'Thursday',
      Fri: 'Friday',
      Sat: 'Saturday',
    }[day!.slice(0, 3)];
    const date = String(inFiveSeconds.getUTCDate());
    for (const form of [
      inFiveSeconds.toUTCString(),
      `${weekday}, ${date.padStart(2, '0')}-${month}-${year!.slice(2)} ${time} GMT`,
      `${day!.slice(0, 3)} ${month} ${date.padStart(2, ' ')} ${time} ${year}`,
    ]) {
      upstream.reset();
      limitedWith(form);
      const outcome = await host.callTool('Limited.Get', {});
      expect(outcome.ok ? undefined : outcome.error.retryAfterSeconds, form).toBeGreaterThan(2);
      expect(upstream.requests, form).toHaveLength(1);
    }
  });
});
