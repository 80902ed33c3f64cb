import type { Socket } from 'node:net';
import { redisRelay } from './redis-relay.js';

// The Sentinel failover tests' replication window, widened: everyone (replicas, Sentinels, and
// through them the hosts) reaches the master through this proxy, which can hold back what the
// master sends on a replica's connection. What the master acknowledges meanwhile is on it alone.

/** The master's address for everyone, able to hold back (and lose) what it sends to replicas. */
export interface MasterProxy {
  port: number;
  /** From now on, what the master sends on a replica's connection goes nowhere. */
  hold(): void;
  close(): void;
}

/** A command a replica sends on its replication connection alone (RESP, as replicas send them). */
const REPLICATION_COMMAND = /(^|\r\n)\*\d+\r\n\$\d+\r\n(REPLCONF|P?SYNC)\r\n/i;

export async function masterProxy(masterPort: number): Promise<MasterProxy> {
  let held = false;
  const replication = new WeakSet<Socket>();
  const relay = await redisRelay(masterPort, {
    fromClient: (d, { client, upstream }) => {
      if (REPLICATION_COMMAND.test(d.toString('latin1'))) replication.add(client);
      upstream.write(d);
    },
    fromUpstream: (d, { client }) => {
      if (!(held && replication.has(client))) client.write(d);
    },
  });
  return {
    port: relay.port,
    hold: () => {
      held = true;
    },
    close: relay.close,
  };
}
