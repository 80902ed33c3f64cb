import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

/** One connection through the relay: the client's socket, the one to Redis, and the end of both. */
export interface RelayedConnection {
  client: Socket;
  upstream: Socket;
  end(): void;
}

/** What a test does with the relay's traffic; by default every byte passes as it came. */
export interface RelayHooks {
  /** Whether to take a new connection (Redis away: no). */
  accept?: () => boolean;
  /** A chunk the client sent: the hook passes it on (`upstream.write`), holds it or cuts. */
  fromClient?: (data: Buffer, connection: RelayedConnection) => void;
  /** A chunk Redis sent: the hook passes it on (`client.write`) or not. */
  fromUpstream?: (data: Buffer, connection: RelayedConnection) => void;
}

/**
 * A loopback TCP relay to the Redis on 127.0.0.1:`port`, for tests that make Redis misbehave
 * between a client and it (a cut connection, a held command, a lost answer) without touching
 * the Redis itself.
 */
export async function redisRelay(port: number, hooks: RelayHooks = {}) {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    if (hooks.accept && !hooks.accept()) return void client.destroy();
    const upstream = connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    const connection: RelayedConnection = {
      client,
      upstream,
      end: () => {
        client.destroy();
        upstream.destroy();
      },
    };
    client.on('data', (d: Buffer) =>
      hooks.fromClient ? hooks.fromClient(d, connection) : upstream.write(d),
    );
    upstream.on('data', (d: Buffer) =>
      hooks.fromUpstream ? hooks.fromUpstream(d, connection) : client.write(d),
    );
    for (const s of [client, upstream]) {
      s.on('close', connection.end);
      s.on('error', connection.end);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const relayPort = (server.address() as AddressInfo).port;
  return {
    port: relayPort,
    url: `redis://127.0.0.1:${relayPort}`,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
