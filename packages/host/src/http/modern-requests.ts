import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { narrowingHeaders, narrowingRequest, requestNarrowing } from '../mcp/catalog-views.js';
import { isLegacyRequest } from '../mcp/protocol-eras.js';
import { RevisionServers } from '../mcp/revision-servers.js';
import { createMcpHandler, type McpHttpHandler, type Server } from '../mcp/sdk.js';
import { onClientLeft } from './event-stream.js';
import { firstHeader } from './request-guards.js';
import { answerByRevisionServer, revisionRequest } from './revision-exchange.js';

/** The user a modern request is made for, carried to the per-request server's factory. */
interface CallerInfo {
  userId: string;
}

export interface ModernRequestsOptions {
  /** A fresh MCP server for one request, for `userId`. */
  createServer: (userId: string) => Server;
  /**
   * An MCP server for any user's requests (createMcpServer's `userPerRequest`), accepting
   * 2026-07-28: reused across the requests most sent (see RevisionServers).
   */
  createRevisionServer?: () => Server;
  maxBodyBytes: number;
  onerror?: (error: Error) => void;
}

/** Whether an HTTP request belongs to the legacy era (see mcp/protocol-eras.ts). */
export function isLegacyHttpRequest(req: IncomingMessage, parsed: unknown): boolean {
  return isLegacyRequest({
    httpMethod: req.method ?? 'GET',
    body: parsed,
    protocolVersionHeader: firstHeader(req, 'mcp-protocol-version'),
    mcpMethodHeader: firstHeader(req, 'mcp-method'),
    mcpNameHeader: firstHeader(req, 'mcp-name'),
  });
}

/**
 * MCP 2026-07-28 over HTTP: every request answered on its own, from the prepared catalog, with
 * no session looked up or recorded, so any replica answers any request. The calls and listings
 * clients repeat, well formed, go to the revision servers, reused from request to request (RevisionServers);
 * every other request to the SDK's entry, a server made for it alone: the entry checks what this
 * revision asks of a request (the `_meta` envelope, the `MCP-Protocol-Version`, `Mcp-Method` and
 * `Mcp-Name` headers against the body, a version it serves, else -32022 naming the supported
 * ones) and shapes the answer; this class carries a Node request to it and its answer back.
 */
export class ModernRequests {
  private readonly handler: McpHttpHandler;
  private readonly revisionServers: RevisionServers | undefined;

  constructor(options: ModernRequestsOptions) {
    this.revisionServers = options.createRevisionServer
      ? new RevisionServers(options.createRevisionServer)
      : undefined;
    this.handler = createMcpHandler(
      (ctx) => options.createServer((ctx.authInfo?.extra as CallerInfo | undefined)?.userId ?? ''),
      {
        legacy: 'reject',
        maxRequestBodySize: options.maxBodyBytes,
        ...(options.onerror ? { onerror: options.onerror } : {}),
      },
    );
  }

  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    parsed: unknown,
    userId: string,
  ): Promise<void> {
    const served = this.revisionServers && revisionRequest(req, parsed);
    if (this.revisionServers && served) {
      return answerByRevisionServer(this.revisionServers, res, served, {
        ...narrowingRequest(req),
        authInfo: callerAuth(userId),
        classification: { era: 'modern', revision: served.revision },
      });
    }
    // The client leaving cancels the request (2026-07-28 cancels by closing the stream).
    const left = new AbortController();
    onClientLeft(res, () => left.abort());
    // The SDK reads nothing of the URL, and the client's target need not make one under its
    // Host (absolute-form, a wildcard bind): its path, as the router read it, under a fixed origin.
    const request = new Request(`http://localhost${url.pathname}${url.search}`, {
      method: req.method ?? 'POST',
      headers: webHeaders(req),
    });
    // The SDK reads the request's `signal` to end the exchange. Given as an option, undici would
    // make a signal of its own that follows this one (weak references, a finalization registry:
    // about half the cost of the whole Request), for a request that is never fetched.
    Object.defineProperty(request, 'signal', { value: left.signal });
    // The handlers read the narrowing from the request's headers, where repeats are joined into
    // one list: they get it resolved from each occurrence instead.
    const narrowing = requestNarrowing(req);
    if (narrowing) for (const [name, value] of narrowingHeaders(narrowing)) request.headers.set(name, value);
    const response = await this.handler.fetch(request, { parsedBody: parsed, authInfo: callerAuth(userId) });
    await writeResponse(res, response);
  }

  async close(): Promise<void> {
    await Promise.all([this.handler.close(), this.revisionServers?.close()]);
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
  onClientLeft(res, () => body.destroy());
  try {
    for await (const chunk of body) res.write(chunk);
  } catch {
    // The client left mid-stream: nothing more to write.
  }
  res.end();
}
