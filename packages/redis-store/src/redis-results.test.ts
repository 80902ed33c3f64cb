import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { SharedRedis } from './redis-client.js';
import { RedisResults } from './redis-results.js';
import type { SharedCipher } from './shared-cipher.js';

const MiB = 1024 * 1024;

/** Redis away: the connection reconnecting, and the cipher's first step refused as a command would be. */
const away = () => new EventEmitter() as unknown as SharedRedis;
const cipher = {
  agree: () => Promise.reject(new Error("Stream isn't writeable")),
} as unknown as SharedCipher;

let n = 0;
const result = (userId: string, bytes: number) => ({
  uri: `toolhost://results/00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  tool: 'EchoApi.GetItem',
  text: '',
  bytes,
  expiresAt: Date.now() + 60_000,
  userId,
});

describe('large results made while Redis is away', () => {
  it("are kept to be shared up to the size of the engine's largest answer, not a fixed 16 MiB", async () => {
    // engine.maxResponseBytes raised to 40 MiB: a result of 50 MiB (its text longer than the answer).
    const raised = new RedisResults(away(), cipher, undefined, 40 * MiB);
    await expect(raised.put(result('alice', 50 * MiB))).rejects.toThrow(/writeable/);
    expect(raised.unshared.size).toBe(1);
    // At the engine's default bound (10 MiB), one user's share stays 16 MiB.
    const byDefault = new RedisResults(away(), cipher);
    await expect(byDefault.put(result('alice', 17 * MiB))).rejects.toThrow(/writeable/);
    expect(byDefault.unshared.size).toBe(0);
    await expect(byDefault.put(result('alice', 15 * MiB))).rejects.toThrow(/writeable/);
    expect(byDefault.unshared.size).toBe(1);
    // A bound raised to 1 GiB: what is held for Redis stays within 64 MiB a user.
    const huge = new RedisResults(away(), cipher, undefined, 1024 * MiB);
    await expect(huge.put(result('alice', 65 * MiB))).rejects.toThrow(/writeable/);
    await expect(huge.put(result('alice', 60 * MiB))).rejects.toThrow(/writeable/);
    expect(huge.unshared.size).toBe(1);
  });
});
