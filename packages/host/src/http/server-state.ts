import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FrontDoor } from '@toolhost/front-door/front-door';
import type { AccessTokens } from '../auth/access-tokens.js';
import type { HostScope } from '../auth/front-door/scopes.js';
import type { Host } from '../host-api.js';
import type { McpServingState } from '../mcp/serving-state.js';
import type { Replicas } from '../replicas.js';
import type { HttpSessions } from './http-sessions.js';
import type { HttpSettings } from './http-settings.js';
import type { OwnAuthorizationServer } from './own-authorization-server.js';

/** Answers a request if it is its route (true), else leaves it to the next (false). */
export type RouteHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
) => boolean | Promise<boolean>;

/** What the routes of one HTTP server share. */
export interface ServerState {
  host: Host;
  options: HttpSettings;
  mcpState: McpServingState;
  sessions: HttpSessions;
  accessTokens: AccessTokens;
  /**
   * The tokens the pages (connections, metrics, probes' figures, home) check: the access tokens,
   * or, where OAuth alone is the door, none that is still required, so that nobody reaching
   * the host counts as its local operator.
   */
  pageTokens: AccessTokens;
  /** The OAuth front door, once the server listens (its resource URL follows the port). */
  frontDoor: () => FrontDoor<HostScope> | undefined;
  shared?: Replicas;
  /** The URL browsers reach this server at, known once it listens. */
  base: () => string;
  draining: () => boolean;
  /** SIGTERM came (or close()): the probes answer 503, requests may still be served. */
  stopping: () => boolean;
  /** POST exchanges whose answer is not yet written; shutdown waits for them. */
  exchanges: Set<ServerResponse>;
  /** The host's own authorization server, when configured: the MCP endpoint honours its tokens. */
  ownAuthorizationServer?: OwnAuthorizationServer;
}
