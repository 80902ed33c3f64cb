import { describe, expect, it } from 'vitest';
import { describeRedisError } from './redis-client.js';

// The client library's words (ioredis's SentinelConnector), as it raises them.
describe('describeRedisError', () => {
  it('says the Sentinels answered but named no master, where the library says they are unreachable', () => {
    const said = describeRedisError(
      'All sentinels are unreachable. Retrying from scratch after 100ms. Last error: connected to sentinel 127.0.0.1:26379 successfully, but got an invalid reply: null',
      'orders',
    );
    expect(said).toBe(
      "the Sentinels answer, but name no master 'orders' yet (a failover under way?); retrying",
    );
    expect(said).not.toContain('unreachable');
  });

  it('says no Sentinel answered when none did, with the last failure', () => {
    expect(
      describeRedisError(
        'All sentinels are unreachable. Retrying from scratch after 100ms. Last error: failed to connect to sentinel 127.0.0.1:26379 because connect ECONNREFUSED 127.0.0.1:26379',
      ),
    ).toBe(
      'no Sentinel answered (last: failed to connect to sentinel 127.0.0.1:26379 because connect ECONNREFUSED 127.0.0.1:26379); retrying',
    );
  });

  it('passes other errors on as they are', () => {
    expect(describeRedisError('connect ECONNREFUSED 127.0.0.1:6379')).toBe(
      'connect ECONNREFUSED 127.0.0.1:6379',
    );
  });
});
