import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeJson } from '@toolhost/authorization-server/http-body';
import { METRICS_PATH } from './metrics-route.js';
import type { ServerState } from './server-state.js';

/**
 * The probes: `GET /livez` (the process serves: 200 even while stopping, so that it is not
 * killed before its calls finish), `GET /readyz` (send it traffic: 503 from SIGTERM, and while
 * the shared store is unreachable) and `GET /healthz` (503 from SIGTERM; 200 through a Redis
 * outage, which every replica shares). Figures only for token holders (or on loopback), and
 * only where the Host is one of ours. False for any other request.
 */
export function answerProbe(
  req: IncomingMessage,
  res: ServerResponse,
  state: ServerState,
  trustedHost: boolean,
): boolean {
  // HEAD as GET (Node sends no body): a balancer's check may use either.
  if ((req.method !== 'GET' && req.method !== 'HEAD') || !req.url?.startsWith('/')) return false;
  const path = req.url.split('?')[0];
  if (path !== '/healthz' && path !== '/livez' && path !== '/readyz') return false;
  const accessTokens = state.pageTokens;
  const stopping = state.stopping();
  const storeDown = state.shared !== undefined && !state.shared.reachable();
  const details =
    trustedHost && (!accessTokens.enabled || accessTokens.userFor(req.headers.authorization) !== undefined);
  let status: string;
  let ok: boolean;
  if (path === '/livez') [status, ok] = ['ok', true];
  else if (stopping) [status, ok] = ['stopping', false];
  else if (path === '/readyz' && storeDown) [status, ok] = ['store_unavailable', false];
  else [status, ok] = [path === '/readyz' ? 'ready' : 'ok', true];
  // The tools as the start log and `toolhost list` count them (the MCP list adds the host's
  // own helpers, such as the write-preview tools, and in dynamic mode lists only those).
  const figures = {
    tools: state.host.listTools().length,
    sessions: state.sessions.size,
    ...(state.shared ? { store: storeDown ? 'unreachable' : 'ok' } : {}),
  };
  writeJson(res, ok ? 200 : 503, details ? { status, ...figures } : { status }, {
    'cache-control': 'no-store',
  });
  return true;
}

/**
 * A scraper per replica (Prometheus' Kubernetes discovery) names the pod's own address, which
 * no Host guard can know. `/metrics` alone is answered whatever the Host, and only where it
 * needs a bearer token (access tokens or the metrics token): a DNS-rebinding page cannot send
 * one, so the guard it stands for holds. Everything else (MCP, OAuth, /connections) keeps it.
 */
export function scrapeByAddress(req: IncomingMessage, state: ServerState): boolean {
  const protectedMetrics = state.pageTokens.enabled || state.options.metricsToken !== undefined;
  return protectedMetrics && req.url?.split('?')[0] === METRICS_PATH;
}
