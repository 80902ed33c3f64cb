import type { IncomingMessage, ServerResponse } from 'node:http';
import { AccessTokens } from '../auth/access-tokens.js';
import type { Host } from '../host-api.js';
import { PROMETHEUS_CONTENT_TYPE } from '../observability/host-telemetry.js';

export const METRICS_PATH = '/metrics';

/**
 * `GET /metrics`: the host's counters in Prometheus text format. With access tokens
 * configured they are for operators only: the access token of a user in `http.operators`, or
 * the metrics token of its own (`http.metricsToken`, for a scraper). Every user's counts, tool
 * names and errors tell another user, or an outsider, what the host is used for. Without
 * access tokens the server listens on loopback only, and serves them. Both tokens are checked
 * as every access token is: by digest, in constant time.
 */
export function metricsRoute(options: {
  host: Pick<Host, 'metrics' | 'config'>;
  accessTokens: AccessTokens;
  metricsToken?: string;
}) {
  const { host, accessTokens } = options;
  const operators = new Set(host.config.http?.operators ?? []);
  const own = options.metricsToken ? new AccessTokens({ scraper: options.metricsToken }) : undefined;
  const allowed = (authorization: string | undefined): 'yes' | 'no' | 'unknown' => {
    const token = /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim();
    if (!token) return 'unknown';
    if (own?.userForToken(token) !== undefined) return 'yes';
    const user = accessTokens.userForToken(token);
    if (user === undefined) return 'unknown';
    return operators.has(user) ? 'yes' : 'no';
  };
  return {
    async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
      if (url.pathname !== METRICS_PATH) return false;
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('Method not allowed\n');
        return true;
      }
      const verdict = accessTokens.enabled || own ? allowed(req.headers.authorization) : 'yes';
      if (verdict === 'unknown') {
        res
          .writeHead(401, { 'www-authenticate': 'Bearer', 'content-type': 'text/plain' })
          .end("Unauthorized: send Authorization: Bearer <metrics token, or an operator's access token>\n");
        return true;
      }
      if (verdict === 'no') {
        res
          .writeHead(403, { 'content-type': 'text/plain' })
          .end(
            'Forbidden: the metrics are for operators (http.operators) and the metrics token (http.metricsToken)\n',
          );
        return true;
      }
      const body = await host.metrics();
      res.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
      return true;
    },
  };
}
