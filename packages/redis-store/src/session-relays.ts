import { randomUUID } from 'node:crypto';
import { ToolError } from '@toolhost/core';
import type { RedisChannels } from './redis-channels.js';
import { inRedis, type SharedRedis } from './redis-client.js';

export const ANSWERS_CHANNEL = 'toolhost:session:client-answers';
/** The client's answers relayed for a session, kept for a replica whose subscription was down. */
export const answersKey = (id: string) => `toolhost:session:answers:${id}`;
/**
 * How long a relayed answer is kept: a subscriber reconnecting after Redis came back takes
 * seconds. Not longer: a session rebuilt on another replica numbers its requests from 0 again,
 * and an old answer read back there could be taken for the answer to a new request.
 */
export const ANSWERS_KEPT_MS = 60_000;
const MAX_ANSWERS = 100;
/**
 * Bytes of relays kept per session, and the most one relay may carry. A person's confirmation
 * is a few hundred; what a client posts as answers is its choice, up to the body limit (4 MiB)
 * each, and was kept up to 100 times a session: 400 MiB of Redis a session, renewed each
 * minute. One larger was still sent to Redis, to be published: while Redis hung, each waited
 * in the host's memory, and a client posting them many at a time grew it without bound.
 */
export const MAX_ANSWER_BYTES = 256 * 1024;
/**
 * Keeps a relay (ARGV[1]) within the newest ARGV[2] relays and ARGV[3] bytes, the oldest going
 * first; one larger than the bound alone is not kept (it is still published). Then the expiry.
 */
const KEEP_ANSWERS = `
local limit = tonumber(ARGV[3])
if string.len(ARGV[1]) > limit then return 0 end
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
local kept = redis.call('LRANGE', KEYS[1], 0, -1)
local total = 0
for i = #kept, 1, -1 do
  total = total + string.len(kept[i])
  if total > limit then
    redis.call('LTRIM', KEYS[1], i, -1)
    break
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1`;

/**
 * A relay of `messages` (the client's, for session `id`) to every replica holding the session,
 * and the writes that make it: kept a minute for a replica whose subscription was down, then
 * published. Throws `payload_too_large` for one over MAX_ANSWER_BYTES, before anything is sent.
 */
export function relayOf(redis: SharedRedis, channels: RedisChannels, id: string, messages: unknown[]) {
  const relay = JSON.stringify({ id, relay: randomUUID(), messages });
  const bytes = Buffer.byteLength(relay);
  if (bytes > MAX_ANSWER_BYTES)
    throw new ToolError({
      code: 'payload_too_large',
      retryable: false,
      message: `The answers posted to this session take ${bytes} bytes; answers relayed to a session's replicas may take at most ${MAX_ANSWER_BYTES} (256 KiB): send a smaller answer.`,
    });
  const keep = [answersKey(id), relay, MAX_ANSWERS, MAX_ANSWER_BYTES, ANSWERS_KEPT_MS] as const;
  const send = async () => {
    await inRedis(() => redis.eval(KEEP_ANSWERS, 1, ...keep));
    await inRedis(() => channels.publish(ANSWERS_CHANNEL, relay));
  };
  return { relay, send };
}
