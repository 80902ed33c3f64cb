import type { Redis } from 'ioredis';

/** Emitted on a connection dropped by `dropFrozen`: the probe that found it frozen tells the outage. */
export const DROPPED_FROZEN = 'toolhost:dropped-frozen';

/**
 * Drops the connection to a Redis that stopped answering while its socket stays open (paused,
 * or its machine gone without a word). The client keeps each command it wrote, arguments and
 * all, until Redis answers, though the caller was told at its timeout that it failed; the socket
 * keeps the bytes Redis no longer reads; and the connection, still "ready", takes every later
 * call the same way: a client posting large answers grew a host by gigabytes in seconds.
 * Dropped, what waited is rejected and freed now, and not sent again once Redis answers (each
 * caller was told it failed; what the system had already taken off the socket may still arrive,
 * as with any connection lost); calls meanwhile fail at once (there is no offline queue) rather
 * than after their timeout; and the client reconnects by its retry strategy, ready again once
 * Redis answers.
 */
export function dropFrozen(redis: Redis): void {
  if (redis.status !== 'ready') return;
  redis.emit(DROPPED_FROZEN);
  const waiting = redis.commandQueue;
  // Destroyed, not ended: an end waits to write what Redis will not read.
  redis.stream.destroy();
  // Emptied before the close, which would keep them to send again on the next connection.
  const dropped = new Error('Redis stopped answering: its connection was dropped');
  for (let item = waiting.shift(); item; item = waiting.shift()) item.command.reject(dropped);
}
