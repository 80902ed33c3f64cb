import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

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
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const toMaster = connect(masterPort, '127.0.0.1');
    let replication = false;
    sockets.add(client).add(toMaster);
    client.on('data', (d) => {
      replication ||= REPLICATION_COMMAND.test(d.toString('latin1'));
      toMaster.write(d);
    });
    toMaster.on('data', (d) => {
      if (!(held && replication)) client.write(d);
    });
    const end = () => {
      client.destroy();
      toMaster.destroy();
    };
    for (const s of [client, toMaster]) {
      s.on('close', end);
      s.on('error', end);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    hold: () => {
      held = true;
    },
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
