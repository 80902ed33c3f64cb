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
  const ids = connectionIds.get(redis);
  if (ids) [ids.dropped, ids.current] = [ids.current, undefined];
  redis.emit(DROPPED_FROZEN);
  const waiting = redis.commandQueue;
  // Destroyed, not ended: an end waits to write what Redis will not read.
  redis.stream.destroy();
  // Emptied before the close, which would keep them to send again on the next connection.
  const dropped = new Error('Redis stopped answering: its connection was dropped');
  for (let item = waiting.shift(); item; item = waiting.shift()) item.command.reject(dropped);
}

/** Each client's connection as Redis numbers it (CLIENT ID), and the one dropped as frozen. */
const connectionIds = new WeakMap<Redis, { current?: number; dropped?: number }>();

/**
 * Has Redis end a connection `dropFrozen` dropped, first thing on the next one. What the system
 * had taken off the dropped socket still reaches Redis when it wakes, and could be applied after
 * what the new connection sends once ready (a claim given back, a spend taken back), undoing
 * the undo; killed by id first, what Redis has not read of it yet is discarded. The kill goes
 * out from a listener put before any other on `ready`, ahead of every command of the new
 * connection. A user whose ACL forbids CLIENT KILL keeps the risk, as before.
 */
export function endDroppedOnReconnect(redis: Redis): void {
  const ids: { current?: number; dropped?: number } = {};
  connectionIds.set(redis, ids);
  const noteId = () =>
    redis.client('ID').then(
      (id) => {
        ids.current = Number(id);
      },
      () => {},
    );
  redis.prependListener('ready', () => {
    if (ids.dropped !== undefined) void redis.client('KILL', 'ID', String(ids.dropped)).catch(() => {});
    ids.dropped = undefined;
    void noteId();
  });
  if (redis.status === 'ready') void noteId();
}
