import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the balancer forwarded it. */
export interface Forwarded {
  target: string;
  method: string;
  path: string;
  session?: string;
  status: number;
}

/**
 * A loopback load balancer for replica tests, written with node:http: each request goes to
 * the next target in turn (round robin, not sticky), or to the one `pick` names. A target that
 * refuses connections is dropped and the request goes to the next, as a balancer's health
 * check would do; a request cut off after it was sent is answered 502, as balancers do.
 */
export interface Balancer {
  url: string;
  targets: string[];
  /** Chooses the target for a request (by path, say); undefined: round robin. */
  pick?: (req: IncomingMessage) => string | undefined;
  forwarded: Forwarded[];
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Sends the request to `target`; rejects with the error code when the target cannot be reached. */
function forward(target: string, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<number> {
  return new Promise((resolve, reject) => {
    const out = request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers });
    out.once('error', (e: NodeJS.ErrnoException) => reject(e));
    out.once('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.once('error', () => res.destroy());
      resolve(answer.statusCode ?? 502);
    });
    res.once('close', () => out.destroy());
    out.end(body);
  });
}

export async function startBalancer(): Promise<Balancer> {
  let turn = 0;
  const state: Balancer = { url: '', targets: [], forwarded: [], close: async () => {} };
  const server = createServer(async (req, res) => {
    const body = await bodyOf(req);
    while (state.targets.length > 0) {
      const picked = state.pick?.(req);
      const target =
        picked && state.targets.includes(picked) ? picked : state.targets[turn++ % state.targets.length]!;
      try {
        const status = await forward(target, req, body, res);
        const session = req.headers['mcp-session-id'];
        state.forwarded.push({
          target,
          method: req.method ?? '',
          path: req.url ?? '',
          status,
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
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return state;
}
