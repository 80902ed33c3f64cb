import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonRpcError } from './request-guards.js';

/**
 * Headers a page must be able to read from the MCP endpoint's answers: the session's id, the
 * protocol version, the sign-in challenge (its resource metadata's URL) and how long to wait.
 */
const EXPOSED = ['mcp-session-id', 'mcp-protocol-version', 'www-authenticate', 'retry-after'];

/**
 * Cross-origin access to the MCP endpoint for the pages of `http.allowedOrigins`: their
 * preflights are answered, and their requests' answers readable. The request headers a
 * preflight asks for are allowed as asked, since the 2026-07-28 transport sends one per tool
 * parameter (`Mcp-Param-…`). Only listed origins: a loopback origin passes the rebinding
 * check, but any page served on this machine has one. No cookies are involved (bearer tokens
 * only), so none are allowed. True when the request was answered here (a preflight). `cors`
 * is loaded with the HTTP server only: importing the host loads no CommonJS package.
 */
export async function mcpCors(
  allowedOrigins: readonly string[] | undefined,
): Promise<(req: IncomingMessage, res: ServerResponse) => Promise<boolean>> {
  const { default: cors } = await import('cors');
  const allowed = new Set(allowedOrigins ?? []);
  const middleware = cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    methods: ['GET', 'POST', 'DELETE'],
    exposedHeaders: EXPOSED,
    maxAge: 600,
  });
  return (req, res) =>
    new Promise<boolean>((resolve, reject) => {
      middleware(req, res, (error?: unknown) => {
        if (error) return reject(error);
        if (req.method !== 'OPTIONS') return resolve(false);
        // A preflight the middleware let through comes from an origin not listed.
        req.resume();
        const origin = req.headers.origin;
        jsonRpcError(
          res,
          origin === undefined ? 405 : 403,
          origin === undefined
            ? 'Method not allowed'
            : `Origin ${origin} is not allowed to call this endpoint from a page; list it in http.allowedOrigins`,
          { headers: { allow: 'GET, POST, DELETE' } },
        );
        resolve(true);
      });
      if (res.writableEnded) resolve(true);
    });
}
