import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, type ClusterNode, Redis, type RedisOptions } from 'ioredis';

/** A real redis-server on a free loopback port, its files in a temporary directory. */
export interface RedisServer {
  url: string;
  port: number;
  /** Stops the server; `save` writes its data first, so that `start()` brings it back. */
  stop(options?: { save?: boolean }): Promise<void>;
  /** Starts it again on the same port and directory (after `stop`). */
  start(): Promise<void>;
  /** Kills the process at once (SIGKILL): a master that dies without a word. */
  kill(): Promise<void>;
  /** Freezes the process (SIGSTOP): connections stay open but nothing is answered. */
  pause(): void;
  resume(): void;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

function redisServerBinary(): string {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim();
  } catch {
    // A missing server must fail the suite, not skip it: the shared-store tests are the only
    // proof that replicas agree, and CI installs the package (.ci/run).
    throw new Error(
      'redis-server is not on PATH: install it (apt-get update && apt-get install -y redis-server) to run the shared-store tests.',
    );
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

async function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('error', () => done(false));
    // A server with a password answers -NOAUTH: up all the same.
    socket.once('data', (d) => done(/^(\+PONG|-NOAUTH)/.test(d.toString())));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
  });
}

/**
 * A test's own ioredis client. Fault tests stop, kill or freeze Redis under it: without an
 * 'error' listener ioredis reports each lost connection as an unhandled error event. End it with
 * `closeClient` before its Redis stops.
 */
export function redisClient(url: string, options: RedisOptions = {}): Redis {
  const client = new Redis(url, options);
  client.on('error', () => {});
  return client;
}

/** A test's own Redis Cluster client, quiet about the node outages the fault tests cause. */
export function clusterClient(nodes: ClusterNode[]): Cluster {
  const client = new Cluster(nodes);
  client.on('error', () => {});
  client.on('node error', () => {});
  return client;
}

/**
 * Ends a test's client: QUIT lets replies still on their way arrive (a bare disconnect rejects
 * them with "Connection is closed.", unhandled when nothing awaits them any more); a client whose
 * Redis no longer answers is cut off instead.
 */
export async function closeClient(client: Redis | Cluster): Promise<void> {
  if (client.status === 'end') return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, 2000);
  });
  await Promise.race([
    client.quit().then(
      () => {},
      () => {},
    ),
    late,
  ]);
  clearTimeout(timer);
  client.disconnect();
}

/**
 * Starts redis-server without persistence unless asked (`SHUTDOWN SAVE`), reachable on 127.0.0.1
 * only. `extraArgs` may be a function, asked again for each port tried (ports it names with it).
 */
export async function startRedisServer(
  extraArgs: string[] | (() => Promise<string[]>) = [],
): Promise<RedisServer> {
  const binary = redisServerBinary();
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-redis-'));
  let port = await freePort();
  let args = typeof extraArgs === 'function' ? await extraArgs() : extraArgs;
  let child: ChildProcess | undefined;
  let output = '';

  const start = async () => {
    output = '';
    const proc = spawn(
      binary,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        // A replica's first sync starts at once: by default the master waits 5 s for more
        // replicas to share the transfer with, which every replica, Cluster and failover test
        // (the old master back as a replica) spent waiting.
        '--repl-diskless-sync-delay',
        '0',
        ...args,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = proc;
    proc.stdout!.on('data', (c: Buffer) => {
      output += c.toString();
    });
    proc.stderr!.on('data', (c: Buffer) => {
      output += c.toString();
    });
    // Up once this process says so and answers: a PING alone could be answered by another
    // test file's server that took the port first.
    const deadline = Date.now() + 10_000;
    while (!(output.includes('Ready to accept connections') && (await answersPing(port)))) {
      if (proc.exitCode !== null || Date.now() > deadline)
        throw new Error(`redis-server did not start on port ${port}: ${output}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  const stop = async (options: { save?: boolean } = {}) => {
    const proc = child;
    if (!proc || proc.exitCode !== null) return;
    child = undefined;
    const exited = new Promise((r) => proc.once('exit', r));
    if (options.save) {
      // SHUTDOWN SAVE writes dump.rdb in `dir`, which the next start loads.
      await new Promise<void>((resolve) => {
        const socket = new Socket();
        socket.once('error', () => resolve());
        socket.once('close', () => resolve());
        socket.connect(port, '127.0.0.1', () => socket.write('SHUTDOWN SAVE\r\n'));
      });
    } else proc.kill('SIGTERM');
    await exited;
  };

  // A free port is free only when asked: another process (a test's client, a parallel test file)
  // may take it before this server binds it. The first start tries others; a restart keeps it.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await start();
      break;
    } catch (e) {
      if (attempt === 3 || !output.includes('Address already in use')) throw e;
      port = await freePort();
      if (typeof extraArgs === 'function') args = await extraArgs();
    }
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    async kill() {
      const proc = child;
      if (!proc || proc.exitCode !== null) return;
      child = undefined;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGCONT');
      proc.kill('SIGKILL');
      await exited;
    },
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits until `replica` replicates (its link up, its first sync done), from the master on
 * `masterPort` where given; a failover before then loses data.
 */
export async function replicating(replica: RedisServer, masterPort?: number): Promise<void> {
  const watching = redisClient(replica.url);
  try {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const info = await watching.info('replication');
      if (
        info.includes('master_link_status:up') &&
        (masterPort === undefined || info.includes(`master_port:${masterPort}\r`))
      )
        return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`replica on ${replica.port} never linked`);
  } finally {
    await closeClient(watching);
  }
}

/**
 * Waits, up to 30 s, until each replica has everything `master` has sent so far (its offset at
 * the master's), and says whether they all did: on a loaded machine a replica lags seconds
 * behind, and a Sentinel may then promote one that lacks what the other acknowledged. One that
 * stays in a full resync that long (no offset meanwhile) is not waited for further: the
 * Sentinels do not promote a replica so long disconnected.
 */
export async function caughtUp(master: RedisServer, replicas: readonly RedisServer[]): Promise<boolean> {
  const offset = (info: string, field: string) => Number(new RegExp(`${field}:(\\d+)`).exec(info)?.[1] ?? -1);
  const clients = [master, ...replicas].map((r) => redisClient(r.url));
  try {
    const target = offset(await clients[0]!.info('replication'), 'master_repl_offset');
    const deadline = Date.now() + 30_000;
    for (const client of clients.slice(1)) {
      while (offset(await client.info('replication'), 'slave_repl_offset') < target) {
        if (Date.now() > deadline) return false;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    return true;
  } finally {
    await Promise.all(clients.map((c) => closeClient(c)));
  }
}

/** A replica of `master`, started and replicating. */
export async function startReplica(master: RedisServer): Promise<RedisServer> {
  const replica = await startRedisServer(['--replicaof', '127.0.0.1', String(master.port)]);
  await replicating(replica);
  return replica;
}

/** A test file's store and its own admin connection to it, apart from the replicas' connections. */
export interface AdministeredStore<Admin extends Redis | Cluster> {
  admin: Admin;
  /** Before each test: empties the store (every master of a cluster). */
  flush(): Promise<void>;
  /** Ends the admin connection, then stops the servers and removes their files. */
  close(): Promise<void>;
}

export type RedisWithAdmin = AdministeredStore<Redis> & { redis: RedisServer };

/**
 * One redis-server and an admin client, connected. The outage tests stop Redis under the
 * client too: it retries a command once, then fails it, rather than waiting for Redis to return.
 */
export async function startRedisWithAdmin(): Promise<RedisWithAdmin> {
  const redis = await startRedisServer();
  const admin = redisClient(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await admin.connect();
  } catch (e) {
    await redis.close();
    throw e;
  }
  return {
    redis,
    admin,
    async flush() {
      await admin.flushall();
    },
    async close() {
      await closeClient(admin);
      await redis.close();
    },
  };
}

/** A real Redis Cluster: masters on free loopback ports, every slot assigned, `replicas` replicas each. */
export interface RedisCluster {
  nodes: RedisServer[];
  /** `host:port` of each node, as `store.cluster` takes them. */
  seeds: [string, ...string[]];
  close(): Promise<void>;
}

/** What `redis-cli -p <port> <args…>` prints. */
export const redisCli = (port: number, ...args: string[]) =>
  execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' });

/**
 * Starts `count` cluster-enabled masters (and `replicas` replicas of each) and joins them with
 * `redis-cli --cluster create`; ready once every node sees every slot served and every replica
 * has its copy.
 */
export async function startRedisCluster(
  count = 3,
  options: { replicas?: number } = {},
): Promise<RedisCluster> {
  const replicas = options.replicas ?? 0;
  // nodes.conf is relative to the server's --dir, its own temporary directory.
  const nodes = await Promise.all(
    Array.from({ length: count * (1 + replicas) }, () =>
      // The bus port is one of its own, not the default port + 10000, which nothing reserved.
      startRedisServer(async () => [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-port',
        String(await freePort()),
      ]),
    ),
  );
  const seeds = nodes.map((n) => `127.0.0.1:${n.port}`) as [string, ...string[]];
  const close = async () => {
    await Promise.all(nodes.map((n) => n.close()));
  };
  try {
    execFileSync(
      'redis-cli',
      ['--cluster', 'create', ...seeds, '--cluster-replicas', String(replicas), '--cluster-yes'],
      { stdio: 'pipe' },
    );
    // Every node must agree that all slots are served, and know every replica as one (gossip
    // tells the others a node's CLUSTER REPLICATE later than the replica links up), and every
    // replica hold its copy, before clients start.
    const deadline = Date.now() + 30_000;
    const knownReplicas = (port: number) =>
      redisCli(port, 'cluster', 'nodes')
        .trim()
        .split('\n')
        .filter((line) => line.split(' ')[2]?.split(',').includes('slave')).length;
    for (const node of nodes) {
      const ready = () => {
        if (!redisCli(node.port, 'cluster', 'info').includes('cluster_state:ok')) return false;
        if (knownReplicas(node.port) !== count * replicas) return false;
        const replication = redisCli(node.port, 'info', 'replication');
        return !replication.includes('role:slave') || replication.includes('master_link_status:up');
      };
      while (!ready()) {
        if (Date.now() > deadline)
          throw new Error(`Redis Cluster on ${seeds.join(', ')} did not become ready`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  } catch (e) {
    await close();
    throw e;
  }
  return { nodes, seeds, close };
}

export type ClusterWithAdmin = AdministeredStore<Cluster> & { cluster: RedisCluster };

/** A cluster of `count` masters and a cluster client of the test's own. */
export async function startClusterWithAdmin(count = 3): Promise<ClusterWithAdmin> {
  const cluster = await startRedisCluster(count);
  const admin = clusterClient(cluster.nodes.map((n) => ({ host: '127.0.0.1', port: n.port })));
  return {
    cluster,
    admin,
    async flush() {
      await Promise.all(admin.nodes('master').map((n) => n.flushall()));
    },
    async close() {
      await closeClient(admin);
      await cluster.close();
    },
  };
}

/** Real redis-sentinel processes watching one master (`mymaster`), on free loopback ports. */
export interface Sentinels {
  /** `host:port` of each, as `store.sentinels` takes them. */
  nodes: [string, ...string[]];
  /** The master's port the Sentinels name now (after a failover, the promoted replica's). */
  masterPort(): Promise<number>;
  close(): Promise<void>;
}

const ask = (port: number, command: string) => redisCli(port, ...command.split(' '));

/** One redis-sentinel process watching `mymaster` on `masterPort`, its files in `dir`. */
async function startSentinel(
  masterPort: number,
  quorum: number,
  dir: string,
): Promise<{ port: number; child: ChildProcess }> {
  // A free port is free only when asked (see startRedisServer): another test file may take it
  // first, and the Sentinel then exits; it tries others.
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    const conf = join(dir, 'sentinel.conf');
    writeFileSync(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor mymaster 127.0.0.1 ${masterPort} ${quorum}`,
        'sentinel down-after-milliseconds mymaster 500',
        'sentinel failover-timeout mymaster 3000',
      ].join('\n'),
    );
    const child = spawn('redis-sentinel', [conf], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (c: Buffer) => {
      output += c.toString();
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    // Up once it names the master it monitors (it listens by then) and answers: a PING alone
    // could be answered by another test file's Sentinel that took the port first.
    const up = async () => output.includes('+monitor master') && (await answersPing(port));
    const deadline = Date.now() + 10_000;
    while (child.exitCode === null && Date.now() < deadline && !(await up()))
      await new Promise((r) => setTimeout(r, 20));
    if (child.exitCode === null && (await up())) {
      // Nothing reads its log from here on.
      child.stdout!.off('data', collect).resume();
      child.stderr!.off('data', collect).resume();
      return { port, child };
    }
    child.kill('SIGKILL');
    if (attempt === 3 || !output.includes('Address already in use'))
      throw new Error(`redis-sentinel did not start on port ${port}: ${output}`);
  }
}

/**
 * Starts `count` Sentinels (quorum a majority) watching the master on `masterPort`, quick to
 * call it down (500 ms), and waits until each knows the others (a failover needs their votes).
 */
export async function startSentinels(masterPort: number, count = 3): Promise<Sentinels> {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  const close = async () => {
    for (const c of children) c.kill('SIGKILL');
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < count; i += 1) {
      const dir = mkdtempSync(join(tmpdir(), 'toolhost-sentinel-'));
      dirs.push(dir);
      const { port, child } = await startSentinel(masterPort, Math.floor(count / 2) + 1, dir);
      ports.push(port);
      children.push(child);
    }
    const deadline = Date.now() + 20_000;
    for (const port of ports) {
      for (;;) {
        let others = -1;
        try {
          const info = ask(port, 'sentinel master mymaster').split('\n');
          others = Number(info[info.indexOf('num-other-sentinels') + 1]);
        } catch {
          // Not up yet.
        }
        if (others >= count - 1) break;
        if (Date.now() > deadline) throw new Error('Sentinels did not find each other');
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } catch (e) {
    await close();
    throw e;
  }
  return {
    nodes: ports.map((p) => `127.0.0.1:${p}`) as [string, ...string[]],
    async masterPort() {
      const [, port] = ask(ports[0]!, 'sentinel get-master-addr-by-name mymaster').trim().split('\n');
      return Number(port);
    },
    close,
  };
}
