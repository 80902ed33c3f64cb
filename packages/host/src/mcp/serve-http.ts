import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Host } from '../host.js';
import type { Logger } from '../logger.js';
import { createMcpServer, prepareMcpCatalog } from './create-mcp-server.js';

export interface HttpServeOptions {
  host?: string;
  port?: number;
  path?: string;
  /** Origins allowed besides loopback ones (DNS-rebinding protection). */
  allowedOrigins?: string[];
  maxBodyBytes?: number;
  logger?: Logger;
  serverInfo?: { name: string; version: string };
}

export interface HttpServerHandle {
  url: string;
  port: number;
  close(): Promise<void>;
}

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new BodyTooLarge());
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function jsonRpcError(res: ServerResponse, status: number, message: string, code = -32000): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/**
 * Streamable HTTP: a fresh MCP server and transport per session, never shared between
 * clients (sharing one leaked responses across clients, CVE-2026-25536).
 */
export async function serveHttp(host: Host, options: HttpServeOptions = {}): Promise<HttpServerHandle> {
  const catalog = prepareMcpCatalog(host);
  const path = options.path ?? '/mcp';
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const allowed = new Set(options.allowedOrigins ?? []);
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: Server }>();
  const log = options.logger;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/healthz' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'ok', tools: catalog.listed.length, sessions: sessions.size }));
      return;
    }
    if (url.pathname !== path) return jsonRpcError(res, 404, 'Not found');
    const origin = req.headers.origin;
    if (origin && !LOOPBACK_ORIGIN.test(origin) && !allowed.has(origin)) {
      return jsonRpcError(res, 403, `Origin ${origin} is not allowed`);
    }

    let parsed: unknown;
    if (req.method === 'POST') {
      let text: string;
      try {
        text = await readBody(req, maxBody);
      } catch (e) {
        return jsonRpcError(
          res,
          e instanceof BodyTooLarge ? 413 : 400,
          e instanceof BodyTooLarge ? 'Request body too large' : 'Bad request',
        );
      }
      try {
        parsed = JSON.parse(text);
      } catch {
        return jsonRpcError(res, 400, 'Parse error: the body is not JSON', -32700);
      }
    }

    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (!session) return jsonRpcError(res, 404, 'Session not found');
      await session.transport.handleRequest(req, res, parsed);
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(parsed)) {
      return jsonRpcError(res, 400, 'Bad request: no valid session id, and not an initialize request');
    }

    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server });
        log?.debug({ session: id }, 'session opened');
      },
    });
    const server = createMcpServer(host, catalog, {
      ...options.serverInfo,
      userId: host.config.defaultUserId,
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, parsed);
  }

  const httpServer = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log?.error({ err: (e as Error).message }, 'request failed');
      jsonRpcError(res, 500, 'Internal error', -32603);
    });
  });
  const bindHost = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, bindHost, () => resolve());
  });
  const { port } = httpServer.address() as AddressInfo;
  const shownHost = bindHost.includes(':') ? `[${bindHost}]` : bindHost;
  return {
    url: `http://${shownHost}:${port}${path}`,
    port,
    async close() {
      await Promise.all([...sessions.values()].map((s) => s.server.close().catch(() => {})));
      sessions.clear();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
