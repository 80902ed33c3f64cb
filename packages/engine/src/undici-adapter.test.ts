import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import axios, { AxiosError, type AxiosInstance } from 'axios';
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createUndiciAdapter } from './undici-adapter.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The client's end of the connection the request came on. */
  port: number | undefined;
}

let server: Server;
let base: string;
let seen: Seen[];
/** Settles when the server has seen the endless answer's connection go away. */
let endlessClosed: Promise<void>;
const agent = new Agent({ connections: 64, headersTimeout: 0, bodyTimeout: 0 });
let client: AxiosInstance;

function endless(res: ServerResponse, headers: Record<string, string> = {}): void {
  endlessClosed = new Promise((resolve) => res.once('close', resolve));
  res.writeHead(200, { 'content-type': 'text/plain', ...headers });
  const chunk = 'x'.repeat(1024);
  // Writes for as long as the client reads: only the client going away ends it.
  const write = () => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', write);
  };
  write();
}

/** What the endless gzip bomb wrote before its connection went away. */
let bombSent: Promise<number>;

/** `member` written again and again without end, under `encoding`, as fast as the client reads. */
function endlessMembers(res: ServerResponse, member: Buffer, encoding: string): void {
  let sent = 0;
  bombSent = new Promise((resolve) => res.once('close', () => resolve(sent)));
  res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
  const write = () => {
    for (let more = true; more && !res.destroyed; ) {
      sent += member.length;
      more = res.write(member);
    }
    if (!res.destroyed) res.once('drain', write);
  };
  write();
}

/** Gzip members of 16 MiB of zeros each (16 KiB on the wire), one after the other without end. */
function gzipBomb(res: ServerResponse): void {
  endlessMembers(res, gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 }), 'gzip');
}

/**
 * Gzip over a gzip bomb: each outer member wraps 64 inner members of 16 MiB of zeros each, so
 * a kilobyte or so on the wire is a gigabyte decoded.
 */
function doubleGzipBomb(res: ServerResponse): void {
  const inner = gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 });
  endlessMembers(
    res,
    gzipSync(Buffer.concat(Array.from({ length: 64 }, () => inner)), { level: 9 }),
    'gzip, gzip',
  );
}

/** Bodies in stacked codings, as `Content-Encoding` lists them: in the order applied. */
const STACKED: Record<string, [string, (text: string) => Buffer]> = {
  '/gzip-gzip': ['gzip, gzip', (text) => gzipSync(gzipSync(text))],
  '/deflate-br': [' Deflate ,BR ', (text) => brotliCompressSync(deflateSync(text))],
  '/identity-gzip': ['identity, x-gzip, identity', (text) => gzipSync(text)],
};

/** Settles when the server has seen the trickling answer's connection go away. */
let trickleClosed: Promise<void>;

/** An answer that never ends, a byte at a time: it never idles long enough for an idle timeout. */
function trickle(res: ServerResponse): void {
  trickleClosed = new Promise((resolve) => res.once('close', resolve));
  res.writeHead(200, { 'content-type': 'text/plain' });
  const timer = setInterval(() => res.write('x'), 20);
  res.once('close', () => clearInterval(timer));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        port: req.socket.remotePort,
      });
      if (req.url === '/endless') return endless(res);
      // Not gzip at all: the first bytes fail to decompress, and more keep coming.
      if (req.url === '/endless-not-gzip') return endless(res, { 'content-encoding': 'gzip' });
      if (req.url === '/trickle') return trickle(res);
      if (req.url === '/gzip-bomb') return gzipBomb(res);
      if (req.url === '/double-gzip-bomb') return doubleGzipBomb(res);
      const stacked = STACKED[req.url ?? ''];
      if (stacked) {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': stacked[0] });
        return void res.end(stacked[1]('unpacked words'));
      }
      // Known codings around one that is not: its bytes keep coming, nobody can decode them.
      if (req.url === '/endless-zstd') return endless(res, { 'content-encoding': 'gzip, zstd' });
      if (req.url === '/busy-zstd') {
        res.writeHead(503, { 'content-encoding': 'zstd', 'retry-after': '3' });
        return void res.end(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3]));
      }
      if (req.url === '/empty-zstd') {
        res.writeHead(200, { 'content-encoding': 'zstd' });
        return void res.end();
      }
      if (req.url === '/gzip-not-gzip') {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip, gzip' });
        return void res.end(gzipSync('not gzip inside'));
      }
      if (req.url === '/gzip-six-times') {
        res.writeHead(200, {
          'content-type': 'text/plain',
          'content-encoding': 'gzip,gzip,gzip,gzip,gzip,gzip',
        });
        return void res.end('x');
      }
      if (req.url === '/gzip') {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        return void res.end(gzipSync('unpacked words'));
      }
      if (req.url === '/cookies') {
        res.setHeader('set-cookie', ['a=1', 'b=2']);
        res.setHeader('x-many', ['one', 'two']);
        return void res.end();
      }
      if (req.url === '/missing') {
        res.writeHead(404);
        return void res.end('no such thing');
      }
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = axios.create({
    adapter: createUndiciAdapter(agent),
    validateStatus: null,
    responseType: 'text',
    transformResponse: [(data: unknown) => data],
  });
});

beforeEach(() => {
  seen = [];
});

afterAll(async () => {
  await agent.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function rejection(p: Promise<unknown>): Promise<AxiosError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AxiosError);
  return e as AxiosError;
}

describe('createUndiciAdapter', () => {
  it('puts the config params in the path, after the query the URL already has', async () => {
    await client.get(`${base}/search?fixed=1`, { params: { q: 'a b', n: 2 } });
    expect(seen[0]?.url).toBe('/search?fixed=1&q=a+b&n=2');
  });

  it('sends the body and content type as given, with axios default headers', async () => {
    const res = await client.post(`${base}/things`, '<a>é</a>', {
      headers: { 'content-type': 'application/xml' },
    });
    expect(res.status).toBe(200);
    expect(seen[0]).toMatchObject({
      method: 'POST',
      body: '<a>é</a>',
      headers: {
        'content-type': 'application/xml',
        'content-length': String(Buffer.byteLength('<a>é</a>')),
        'user-agent': `axios/${axios.VERSION}`,
        'accept-encoding': 'gzip, deflate, br',
      },
    });
  });

  it('drops from header values the bytes a header line cannot carry', async () => {
    await client.get(`${base}/h`, { headers: { 'x-note': ' one\r\nx-injected: 1 ☃ ' } });
    expect(seen[0]?.headers['x-note']).toBe('onex-injected: 1');
    expect(seen[0]?.headers['x-injected']).toBeUndefined();
  });

  it('decompresses gzip bodies and drops content-encoding', async () => {
    const res = await client.get(`${base}/gzip`);
    expect(res.data).toBe('unpacked words');
    expect(res.headers['content-encoding']).toBeUndefined();
  });

  it('joins repeated response headers as Node did, keeping set-cookie a list', async () => {
    const res = await client.get(`${base}/cookies`);
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(res.headers['x-many']).toBe('one, two');
  });

  it('leaves the status to validateStatus', async () => {
    expect((await client.get(`${base}/missing`)).data).toBe('no such thing');
    const e = await rejection(client.get(`${base}/missing`, { validateStatus: (s) => s < 400 }));
    expect(e.code).toBe('ERR_BAD_REQUEST');
    expect(e.response?.status).toBe(404);
  });

  it('stops reading past maxContentLength and closes the connection', async () => {
    const e = await rejection(client.get(`${base}/endless`, { maxContentLength: 10_000 }));
    expect(e.code).toBe('ERR_BAD_RESPONSE');
    expect(e.message).toMatch(/maxContentLength/);
    // The server writes until its client goes away: this settles only if the adapter hung up.
    await endlessClosed;
  });

  it('reads a compressed answer no faster than it decompresses, so a gzip bomb costs its limit, not the wire', async () => {
    const e = await rejection(client.get(`${base}/gzip-bomb`, { maxContentLength: 10 * 1024 * 1024 }));
    expect(e.message).toMatch(/maxContentLength/);
    // 10 MiB decompressed is under a member's 16 KiB; what the socket buffers comes on top.
    expect(await bombSent).toBeLessThan(32 * 1024 * 1024);
  });

  it('decodes stacked codings the last applied first, identity skipped, and drops content-encoding', async () => {
    for (const path of Object.keys(STACKED)) {
      const res = await client.get(`${base}${path}`);
      expect(res.data).toBe('unpacked words');
      expect(res.headers['content-encoding']).toBeUndefined();
    }
  });

  it('fails an answer in a coding it cannot decode at its first byte, naming the coding, and hangs up', async () => {
    const e = await rejection(client.get(`${base}/endless-zstd`));
    expect(e.code).toBe('ERR_UNDECODABLE_BODY');
    expect(e.message).toBe("content-encoding 'zstd', which cannot be decoded (gzip, deflate and br can)");
    expect(e.response?.status).toBe(200);
    await endlessClosed;
    // Without a body there is nothing to decode.
    const empty = await client.get(`${base}/empty-zstd`);
    expect(empty.data).toBe('');
    expect(empty.headers['content-encoding']).toBe('zstd');
  });

  it('answers an error status in a coding it cannot decode by its status, saying why its body is not shown', async () => {
    // A 503 or a 429 stays retryable: failing it as undecodable lost what its status says.
    const busy = await client.get(`${base}/busy-zstd`);
    expect(busy.status).toBe(503);
    expect(busy.headers['retry-after']).toBe('3');
    expect(busy.data).toBe(
      "(not shown: the body is in content-encoding 'zstd', which cannot be decoded (gzip, deflate and br can))",
    );
  });

  it('refuses more codings over one another than it decodes, and fails where an inner one is broken', async () => {
    const many = await rejection(client.get(`${base}/gzip-six-times`));
    expect(many.code).toBe('ERR_UNDECODABLE_BODY');
    expect(many.message).toBe('6 content codings, more than the 5 decoded one over another');
    expect((await rejection(client.get(`${base}/gzip-not-gzip`))).code).toBe('Z_DATA_ERROR');
  });

  it('bounds stacked codings as one: a bomb under gzip costs its limit, not the wire', async () => {
    const e = await rejection(client.get(`${base}/double-gzip-bomb`, { maxContentLength: 64 * 1024 * 1024 }));
    expect(e.message).toMatch(/maxContentLength/);
    // Half the limit on the wire, at most: it was reached decoding (undecoded, the bomb's own
    // bytes would have reached it), in the first outer member; the sockets' buffers come on top.
    expect(await bombSent).toBeLessThan(32 * 1024 * 1024);
  });

  it('hangs up on an answer that fails to decompress, rather than read the rest of it', async () => {
    const e = await rejection(client.get(`${base}/endless-not-gzip`, { maxContentLength: 10_000 }));
    expect(e.code).toBe('Z_DATA_ERROR');
    // The server writes until its client goes away: this settles only if the adapter hung up.
    await endlessClosed;
  });

  it('bounds the whole exchange by timeout, however the answer trickles in, and hangs up', async () => {
    const e = await rejection(client.get(`${base}/trickle`, { timeout: 200 }));
    expect(e.code).toBe('ECONNABORTED');
    expect(e.message).toBe('timeout of 200ms exceeded');
    await trickleClosed;
    const clarified = await rejection(
      client.get(`${base}/trickle`, { timeout: 100, transitional: { clarifyTimeoutError: true } }),
    );
    expect(clarified.code).toBe('ETIMEDOUT');
    await trickleClosed;
  });

  it('keeps the network error code of a refused connection', async () => {
    const e = await rejection(client.get('http://127.0.0.1:1/x'));
    expect(e.code).toBe('ECONNREFUSED');
  });

  it('reports an aborted signal as a cancellation', async () => {
    const ac = new AbortController();
    const p = client.get(`${base}/endless`, { signal: ac.signal });
    ac.abort(new Error('not wanted any more'));
    const e = await rejection(p);
    expect(axios.isCancel(e)).toBe(true);
    expect(e.code).toBe('ERR_CANCELED');
  });

  it('settles on abort while the connection is still being opened', async () => {
    // A TLS handshake that never answers; undici alone would wait out its connect timeout.
    const accepted: Socket[] = [];
    const silent = createNetServer((socket) => void accepted.push(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const patient = new Agent({ connect: { timeout: 600_000 } });
    try {
      const ac = new AbortController();
      const p = axios
        .create({ adapter: createUndiciAdapter(patient) })
        .get(`https://127.0.0.1:${(silent.address() as AddressInfo).port}/x`, { signal: ac.signal });
      setTimeout(() => ac.abort(), 50);
      expect((await rejection(p)).code).toBe('ERR_CANCELED');
    } finally {
      for (const socket of accepted) socket.destroy();
      await patient.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it('keeps connections alive: sequential requests do not each open one', async () => {
    // A pool of its own: the shared one may hold connections from the other cases.
    const fresh = new Agent({ connections: 64 });
    const own = axios.create({ adapter: createUndiciAdapter(fresh) });
    try {
      for (let i = 0; i < 10; i += 1) await own.get(`${base}/n${i}`);
    } finally {
      await fresh.close();
    }
    // Only this case's requests: an earlier case's retried or abandoned request may still reach
    // the server while this one runs on a loaded machine.
    const mine = seen.filter((s) => /^\/n\d$/.test(s.url));
    expect(mine).toHaveLength(10);
    // undici hands a connection back to its pool a tick after the answer has been read, so a
    // request sent at once may open a second one; from then on the two are reused.
    expect(new Set(mine.map((s) => s.port)).size).toBeLessThanOrEqual(2);
  });
});
