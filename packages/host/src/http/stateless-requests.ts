import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { narrowingRequest } from '../mcp/catalog-views.js';
import { isObject, metaOf } from '../mcp/jsonrpc-messages.js';
import {
  classifyInboundRequest,
  createMcpHandler,
  type McpHttpHandler,
  PROTOCOL_VERSION_META_KEY,
  type Server,
} from '../mcp/sdk.js';
import { firstHeader } from './request-guards.js';
import { ReusedServers, reusableRequest } from './reused-servers.js';

/** The user a stateless request is made for, carried to the per-request server's factory. */
interface CallerInfo {
  userId: string;
}

export interface StatelessRequestsOptions {
  /** A fresh MCP server for one request, for `userId`. */
  createServer: (userId: string) => Server;
  /**
   * An MCP server for any user's requests (createMcpServer's `userPerRequest`), accepting
   * 2026-07-28: reused across the requests most sent (see ReusedServers).
   */
  createReusedServer?: () => Server;
  maxBodyBytes: number;
  onerror?: (error: Error) => void;
}

/**
 * Whether a request belongs to the session era (MCP 2025-11-25 and earlier: `initialize`, then
 * requests of the session) rather than to 2026-07-28, where every request stands alone and
 * carries the protocol version in its `_meta`. The SDK's own classification, on the body the
 * endpoint has already parsed, so that a session request pays for no web `Request`.
 */
export function isSessionEra(req: IncomingMessage, parsed: unknown): boolean {
  if (claimsStatelessEra(parsed)) return false;
  return (
    classifyInboundRequest({
      httpMethod: req.method ?? 'GET',
      body: parsed,
      protocolVersionHeader: firstHeader(req, 'mcp-protocol-version'),
      mcpMethodHeader: firstHeader(req, 'mcp-method'),
      mcpNameHeader: firstHeader(req, 'mcp-name'),
    }).kind === 'legacy'
  );
}

/**
 * A single request (not `initialize`, not a response) whose `_meta` names a protocol version:
 * the SDK's classification never routes it to the session era (it serves it as 2026-07-28 or
 * refuses it), and it classifies it again on that path, so the first classification is skipped.
 */
function claimsStatelessEra(parsed: unknown): boolean {
  if (!isObject(parsed)) return false;
  if (typeof parsed.method !== 'string' || parsed.method === 'initialize') return false;
  if ('result' in parsed || 'error' in parsed) return false;
  const meta = metaOf(parsed);
  return meta !== undefined && PROTOCOL_VERSION_META_KEY in meta;
}

/**
 * MCP 2026-07-28 over HTTP: every request answered on its own, from the prepared catalog, with
 * no session looked up or recorded, so any replica answers any request. The calls and listings
 * clients repeat, well formed, go to servers reused from request to request (ReusedServers);
 * every other request to the SDK's entry, a server made for it alone: the entry checks what this
 * revision asks of a request (the `_meta` envelope, the `MCP-Protocol-Version`, `Mcp-Method` and
 * `Mcp-Name` headers against the body, a version it serves, else -32022 naming the supported
 * ones) and shapes the answer; this class carries a Node request to it and its answer back.
 */
export class StatelessRequests {
  private readonly handler: McpHttpHandler;
  private readonly reused: ReusedServers | undefined;

  constructor(options: StatelessRequestsOptions) {
    this.reused = options.createReusedServer ? new ReusedServers(options.createReusedServer) : undefined;
    this.handler = createMcpHandler(
      (ctx) => options.createServer((ctx.authInfo?.extra as CallerInfo | undefined)?.userId ?? ''),
      {
        legacy: 'reject',
        maxRequestBodySize: options.maxBodyBytes,
        ...(options.onerror ? { onerror: options.onerror } : {}),
      },
    );
  }

  async handle(req: IncomingMessage, res: ServerResponse, parsed: unknown, userId: string): Promise<void> {
    const reusable = this.reused && reusableRequest(req, parsed);
    if (this.reused && reusable) {
      return this.reused.serve(res, reusable, {
        ...narrowingRequest(req.headers),
        authInfo: callerAuth(userId),
        classification: { era: 'modern', revision: reusable.revision },
      });
    }
    // The client leaving cancels the request (2026-07-28 cancels by closing the stream).
    const left = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) left.abort();
    });
    const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
      method: req.method ?? 'POST',
      headers: webHeaders(req),
    });
    // The SDK reads the request's `signal` to end the exchange. Given as an option, undici would
    // make a signal of its own that follows this one (weak references, a finalization registry:
    // about half the cost of the whole Request), for a request that is never fetched.
    Object.defineProperty(request, 'signal', { value: left.signal });
    const response = await this.handler.fetch(request, { parsedBody: parsed, authInfo: callerAuth(userId) });
    await writeResponse(res, response);
  }

  async close(): Promise<void> {
    await Promise.all([this.handler.close(), this.reused?.close()]);
  }
}

/** Who is asking, as the endpoint settled it (access tokens); the token itself stays there. */
function callerAuth(userId: string) {
  const caller: CallerInfo = { userId };
  return { token: '', clientId: userId, scopes: [], extra: { ...caller } };
}

/** The request's headers for a web `Request`: as Node joined them, repeated ones as a list. */
function webHeaders(req: IncomingMessage): Record<string, string> | Headers {
  const headers = req.headers;
  for (const name in headers) {
    // Only `set-cookie` comes as a list, and a client has no reason to send it: the slow path.
    if (typeof headers[name] !== 'string') return listedHeaders(req);
  }
  return headers as Record<string, string>;
}

function listedHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of [value].flat()) headers.append(name, v);
  }
  return headers;
}

/** Writes a web `Response` (a JSON body or an event stream) to Node's response. */
async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (!response.body) return void res.writeHead(response.status, headers).end();
  if (!(headers['content-type'] ?? '').startsWith('text/event-stream')) {
    // A JSON answer (most requests): read whole and written with its headers in one write,
    // which costs a fraction of piping the web stream and flushing the headers on their own.
    const body = Buffer.from(await response.arrayBuffer());
    headers['content-length'] = String(body.length);
    return void res.writeHead(response.status, headers).end(body);
  }
  res.writeHead(response.status, headers);
  // Event streams go out as they are written: headers first, then each event as it comes.
  res.flushHeaders();
  const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
  res.once('close', () => body.destroy());
  try {
    for await (const chunk of body) res.write(chunk);
  } catch {
    // The client left mid-stream: nothing more to write.
  }
  res.end();
}
