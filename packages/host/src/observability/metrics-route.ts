import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccessTokens } from '../auth/access-tokens.js';
import type { Host } from '../host.js';
import { PROMETHEUS_CONTENT_TYPE } from './host-telemetry.js';

export const METRICS_PATH = '/metrics';

/**
 * `GET /metrics`: the host's counters in Prometheus text format. With access tokens
 * configured a scraper must send one (`Authorization: Bearer …`, Prometheus's
 * `authorization` setting): tool and tool-set names and error counts tell an outsider what
 * the host is used for. Without them the server listens on loopback only.
 */
export function metricsRoute(options: { host: Pick<Host, 'metrics'>; accessTokens: AccessTokens }) {
  const { host, accessTokens } = options;
  return {
    async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
      if (url.pathname !== METRICS_PATH) return false;
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('Method not allowed\n');
        return true;
      }
      if (accessTokens.enabled && accessTokens.userFor(req.headers.authorization) === undefined) {
        res
          .writeHead(401, { 'www-authenticate': 'Bearer', 'content-type': 'text/plain' })
          .end('Unauthorized: send Authorization: Bearer <access token>\n');
        return true;
      }
      const body = await host.metrics();
      res.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
      return true;
    },
  };
}
