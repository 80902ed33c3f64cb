import {
  Agent,
  type ClientRequest,
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as the balancer forwarded it. */
export interface Forwarded {
  target: string;
  method: string;
  path: string;
  session?: string;
  status: number;
  /** Sent on an upstream connection the balancer held from an earlier request. */
  reused?: boolean;
}

/**
 * Pooling, as AWS ALB, nginx (`keepalive`), GCP and Envoy do: upstream connections are kept
 * for `idleSeconds` after a request and reused. A target that closes one sooner races the
 * balancer's next request on it, which a balancer answers 502: `closedByTarget` counts those
 * closes (each a 502 waiting for an unlucky moment), with how long each had been idle.
 */
export interface Pool {
  idleSeconds: number;
  closedByTarget: { target: string; idleMs: number }[];
}

/**
 * A loopback load balancer for replica tests, written with node:http: each request goes to
 * the next target in turn (round robin, not sticky), or to the one `pick` names, on a
 * connection of its own unless started with `{ pool }`. A target that refuses connections is
 * dropped and the request goes to the next, as a balancer's health check would do; a request
 * cut off after it was sent is answered 502, as balancers do.
 */
export interface Balancer {
  url: string;
  targets: string[];
  /** Chooses the target for a request (by path, say); undefined: round robin. */
  pick?: (req: IncomingMessage) => string | undefined;
  forwarded: Forwarded[];
  /** Set when started with `{ pool }`. */
  pool?: Pool;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Hop-by-hop fields (RFC 9110 §7.6.1) and those Connection names: one connection's, not passed on. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'te', 'transfer-encoding', 'upgrade'];

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = (headers.connection ?? '').split(',').map((f) => f.trim().toLowerCase());
  return Object.fromEntries(
    Object.entries(headers).filter(([field]) => !HOP_BY_HOP.includes(field) && !named.includes(field)),
  );
}

/** Sends the request to `target`; rejects with the error code when the target cannot be reached. */
function forward(
  target: string,
  req: IncomingMessage,
  body: Buffer,
  res: ServerResponse,
  pooling?: Pooling,
): Promise<{ status: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const out = request(new URL(req.url ?? '/', target), {
      method: req.method,
      headers: endToEnd(req.headers),
      // Unpooled: a connection per request, as sending a stopped target's requests to the next
      // on its refusal presumes. Node's global agent keeps connections (Node ≥ 19), and a
      // request on one a stopping target was closing would be cut off instead: a 502.
      agent: pooling ? pooling.agent : false,
    });
    pooling?.taken(out);
    out.once('error', (e: NodeJS.ErrnoException) => reject(e));
    out.once('response', (answer) => {
      // The target's Keep-Alive (75 s for the host) passed on had clients hold a connection this
      // server closes at 6 s, and reset a request sent as it closed: each hop says its own.
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      // Headers go on at once, as a balancer's do: an event stream's come long before its first event.
      res.flushHeaders();
      answer.pipe(res);
      answer.once('error', () => res.destroy());
      // A target that dies mid-answer (an event stream) cuts the client's connection too.
      answer.once('close', () => {
        if (!answer.complete) res.destroy();
      });
      resolve({ status: answer.statusCode ?? 502, reused: out.reusedSocket });
    });
    res.once('close', () => out.destroy());
    out.end(body);
  });
}

/**
 * A keep-alive agent that holds idle upstream connections `idleSeconds` and notes each one its
 * target closed first while it sat idle.
 */
function pooling(pool: Pool): Pooling {
  const agent = new Agent({ keepAlive: true });
  // Its own hold, as a balancer's: not shortened to the target's `Keep-Alive: timeout` hint,
  // which Node's agent would follow and balancers do not.
  agent.keepSocketAlive = (socket: Socket) => {
    socket.setKeepAlive(true, 1000);
    socket.unref();
    socket.setTimeout(pool.idleSeconds * 1000);
    return true;
  };
  const idleSince = new WeakMap<Socket, number>();
  const watched = new WeakSet<Socket>();
  agent.on('free', (socket: Socket, options: { host: string; port: number }) => {
    idleSince.set(socket, Date.now());
    if (watched.has(socket)) return;
    watched.add(socket);
    // Idle for the balancer's whole hold: the balancer lets it go, not the target.
    socket.on('timeout', () => idleSince.delete(socket));
    socket.once('close', () => {
      const since = idleSince.get(socket);
      if (since !== undefined)
        pool.closedByTarget.push({
          target: `http://${options.host}:${options.port}`,
          idleMs: Date.now() - since,
        });
    });
  });
  // A socket taken from the pool for a request is busy, not idle.
  return { agent, taken: (req) => req.once('socket', (s) => idleSince.delete(s)) };
}

interface Pooling {
  agent: Agent;
  /** Marks the connection a request is given as busy. */
  taken(req: ClientRequest): void;
}

export async function startBalancer(options: { pool?: { idleSeconds: number } } = {}): Promise<Balancer> {
  let turn = 0;
  const state: Balancer = { url: '', targets: [], forwarded: [], close: async () => {} };
  if (options.pool) state.pool = { ...options.pool, closedByTarget: [] };
  const pooled = state.pool ? pooling(state.pool) : undefined;
  const server = createServer(async (req, res) => {
    const body = await bodyOf(req);
    while (state.targets.length > 0) {
      const picked = state.pick?.(req);
      const target =
        picked && state.targets.includes(picked) ? picked : state.targets[turn++ % state.targets.length]!;
      try {
        const { status, reused } = await forward(target, req, body, res, pooled);
        const session = req.headers['mcp-session-id'];
        state.forwarded.push({
          target,
          method: req.method ?? '',
          path: req.url ?? '',
          status,
          ...(pooled ? { reused } : {}),
          ...(typeof session === 'string' ? { session } : {}),
        });
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ECONNREFUSED') break;
        // Nothing reached the target: drop it and send the request to the next.
        state.targets = state.targets.filter((t) => t !== target);
      }
    }
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    pooled?.agent.destroy();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return state;
}
