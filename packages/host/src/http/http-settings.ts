import type { Server } from 'node:http';
import type { FrontDoorSettings } from '@toolhost/front-door/front-door';
import type { AccessTokens } from '../auth/access-tokens.js';
import type { HostScope } from '../auth/front-door/scopes.js';
import type { Host } from '../host-api.js';
import type { Logger } from '../logger.js';

/**
 * The HTTP server's options. What is left out comes from the host's config (`http.*`, with its
 * defaults), except the port (default: any free one) and the access tokens (default: none).
 */
export interface HttpServeOptions {
  /** The address to listen on (default `http.host`, loopback); `0.0.0.0` or `::` for every interface. */
  bindAddress?: string;
  port?: number;
  path?: string;
  /** Origins allowed besides loopback ones (DNS-rebinding protection). */
  allowedOrigins?: string[];
  /** Host header values allowed besides the bound address and the public URL's host. */
  allowedHosts?: string[];
  maxBodyBytes?: number;
  logger?: Logger;
  serverInfo?: { name: string; version: string };
  /** Operator-issued bearer tokens mapped to user ids; required to bind beyond loopback. */
  accessTokens?: AccessTokens;
  /**
   * The MCP endpoint as an OAuth protected resource: who issues its tokens and how they are
   * checked (default: from `http.authorization`; the host's own authorization server hands in
   * its own). Static access tokens keep working beside it.
   */
  frontDoor?: FrontDoorSettings<HostScope>;
  /** A bearer token of its own for `/metrics` (default `http.metricsToken`). */
  metricsToken?: string;
  /** The URL browsers reach this server at, for OAuth redirect URIs (default: the bound address). */
  publicUrl?: string;
  /** false: serve only OAuth pages and health (the stdio mode's companion server). */
  mcp?: boolean;
  /** Open sessions per user (per user and client without access tokens) and in all. */
  maxSessionsPerUser?: number;
  maxSessions?: number;
  /** Idle sessions are closed after this long. */
  sessionIdleSeconds?: number;
  /** How long close() waits for answers still being written (default 5 s). */
  drainSeconds?: number;
  /** Idle connections are kept this long (default `http.keepAliveSeconds`). */
  keepAliveSeconds?: number;
  /** A request's headers may take this long (default `http.headersTimeoutSeconds`, else keep-alive + 5 s). */
  headersTimeoutSeconds?: number;
  /** How long `beginStopping()` keeps serving after the probes turn 503 (default `http.drainDelaySeconds`). */
  drainDelaySeconds?: number;
}

/** The options given, with the host's config (`http.*`, defaults filled in) for what they leave out. */
export type HttpSettings = ReturnType<typeof settingsOf>;

export function settingsOf(host: Host, options: HttpServeOptions) {
  const http = host.config.http;
  return {
    ...options,
    bindAddress: options.bindAddress ?? http.host,
    path: options.path ?? http.path,
    publicUrl: options.publicUrl ?? http.publicUrl,
    allowedOrigins: options.allowedOrigins ?? http.allowedOrigins,
    allowedHosts: options.allowedHosts ?? http.allowedHosts,
    maxBodyBytes: options.maxBodyBytes ?? http.maxBodyBytes,
    maxSessionsPerUser: options.maxSessionsPerUser ?? http.maxSessionsPerUser,
    maxSessions: options.maxSessions ?? http.maxSessions,
    sessionIdleSeconds: options.sessionIdleSeconds ?? http.sessionIdleSeconds,
    drainDelaySeconds: options.drainDelaySeconds ?? http.drainDelaySeconds,
    metricsToken: options.metricsToken ?? http.metricsToken,
    ...connectionTimeouts(options, http),
  };
}

/**
 * Keep-alive above a pooling balancer's idle timeout, so that the balancer, not the host, closes
 * idle connections (else it may send on one the host is closing: a 502). Headers may take
 * longer than that: where they did not, Node could end a reused connection's next request
 * on the idle time alone.
 */
function connectionTimeouts(
  options: Pick<HttpServeOptions, 'keepAliveSeconds' | 'headersTimeoutSeconds'>,
  http: { keepAliveSeconds: number; headersTimeoutSeconds?: number },
) {
  const keepAliveSeconds = options.keepAliveSeconds ?? http.keepAliveSeconds;
  const headersTimeoutSeconds =
    options.headersTimeoutSeconds ?? http.headersTimeoutSeconds ?? keepAliveSeconds + 5;
  if (headersTimeoutSeconds <= keepAliveSeconds)
    throw new Error(
      `http.headersTimeoutSeconds (${headersTimeoutSeconds}) must be above http.keepAliveSeconds (${keepAliveSeconds}); leave it unset for keep-alive + 5 s.`,
    );
  return { keepAliveSeconds, headersTimeoutSeconds };
}

/** Applies the connection timeouts: Node requires the whole request's deadline to be no shorter. */
export function applyConnectionTimeouts(
  server: Server,
  { keepAliveSeconds, headersTimeoutSeconds }: ReturnType<typeof connectionTimeouts>,
): void {
  server.keepAliveTimeout = keepAliveSeconds * 1000;
  server.headersTimeout = headersTimeoutSeconds * 1000;
  server.requestTimeout = Math.max(server.requestTimeout, server.headersTimeout);
}
