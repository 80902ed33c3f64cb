import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the fake upstream received it. */
export interface RecordedRequest {
  method: string;
  /** Decoded path, without the query. */
  path: string;
  /** The path exactly as sent on the wire (percent-encoding intact). */
  rawPath: string;
  /** Query pairs in wire order, decoded. */
  query: [string, string][];
  /** The raw query string as sent. */
  rawQuery: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, the text where it is not JSON, undefined when empty. */
  body: unknown;
  /** True when the caller dropped the connection before the answer was sent (e.g. a cancelled call). */
  aborted: boolean;
  /**
   * When its head was read (ms since the epoch, on this process's monotonic clock): in the
   * turn that parsed it, before the turns that read its body and answer.
   */
  receivedAt: number;
}

export interface FakeResponse {
  status?: number;
  headers?: Record<string, string>;
  /** JSON-serialized unless a string, or bytes (sent as they are: a compressed body, say). */
  body?: unknown;
  /** Delay before answering, in ms. */
  delayMs?: number;
}

export type Responder = (req: RecordedRequest) => FakeResponse | Promise<FakeResponse>;

export interface RecordingUpstream {
  /** Base URL, e.g. http://127.0.0.1:54321 */
  url: string;
  requests: RecordedRequest[];
  /** Replaces how the upstream answers (default: 200 with {ok:true}). */
  respond(responder: Responder): void;
  reset(): void;
  /** Open client connections right now (to check for leaked sockets). */
  connections(): Promise<number>;
  close(): Promise<void>;
}

function readAll(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * A loopback HTTP server that records every request and answers as told: the stand-in for
 * HubSpot, Customer.io and Airtable in tests. Binds 127.0.0.1 only.
 */
export async function startRecordingUpstream(responder?: Responder): Promise<RecordingUpstream> {
  const requests: RecordedRequest[] = [];
  let answer: Responder = responder ?? (() => ({ status: 200, body: { ok: true } }));
  const server = createServer(async (req, res) => {
    const receivedAt = performance.timeOrigin + performance.now();
    const raw = req.url ?? '/';
    const q = raw.indexOf('?');
    const rawPath = q === -1 ? raw : raw.slice(0, q);
    const rawQuery = q === -1 ? '' : raw.slice(q + 1);
    const text = await readAll(req);
    let body: unknown;
    if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: decodeURIComponent(rawPath),
      rawPath,
      query: [...new URLSearchParams(rawQuery)],
      rawQuery,
      headers: req.headers,
      body,
      aborted: false,
      receivedAt,
    };
    res.on('close', () => {
      if (!res.writableFinished) recorded.aborted = true;
    });
    requests.push(recorded);
    try {
      const r = await answer(recorded);
      if (r.delayMs) await new Promise((resolve) => setTimeout(resolve, r.delayMs));
      const { body } = r;
      const given = typeof body === 'string' || body instanceof Uint8Array;
      const payload = body === undefined ? '' : given ? body : JSON.stringify(body);
      res.writeHead(r.status ?? 200, {
        ...(payload.length > 0 && !given ? { 'content-type': 'application/json' } : {}),
        ...r.headers,
      });
      res.end(payload);
    } catch {
      res.destroy();
    }
  });
  // Node closes idle keep-alive sockets after 5 s; on a loaded machine the host can reuse such a
  // socket just as it closes, and a POST (never retried) then fails with ECONNRESET. Real
  // upstreams keep connections far longer, so the fake does too.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respond(next) {
      answer = next;
    },
    reset() {
      requests.length = 0;
    },
    connections() {
      return new Promise((resolve, reject) =>
        server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
      );
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Answers (`answer`, 200 `{ ok: true }` by default) held until `release`: a test that needs
 * calls in flight while it checks something holds them as long as that takes, not for a fixed
 * delay that a loaded machine's next step can outlast.
 */
export function heldAnswers(answer: FakeResponse = { status: 200, body: { ok: true } }): {
  responder: Responder;
  release: () => void;
} {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    responder: async () => {
      await released;
      return answer;
    },
    release,
  };
}
