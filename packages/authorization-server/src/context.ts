import type { IncomingMessage } from 'node:http';
import type { ClientResolver } from './clients.js';
import type { Grants } from './grants.js';
import type { AuthorizationEvent, AuthorizationServerOptions } from './options.js';
import type { PersonBounds } from './person-bounds.js';
import { isLoopbackHost } from './redirect-uris.js';
import type { SignInBindings } from './sign-in-binding.js';
import type { StateStore } from './state-store.js';

/** The endpoints' paths under the issuer. */
export const PATHS = {
  metadata: '/.well-known/oauth-authorization-server',
  authorize: '/auth/authorize',
  signIn: '/auth/sign-in',
  upstream: '/auth/upstream',
  upstreamCallback: '/auth/upstream/callback',
  consent: '/auth/consent',
  token: '/auth/token',
  register: '/auth/register',
  revoke: '/auth/revoke',
  jwks: '/auth/jwks',
} as const;

/** What the endpoints share. */
export interface Context {
  options: AuthorizationServerOptions;
  store: StateStore;
  clients: ClientResolver;
  grants: Grants;
  /** What sign-ins by access token keep of their token, and whether it still holds. */
  bindings: SignInBindings;
  /** Each person's sign-ins and completed authorizations. */
  people: PersonBounds;
  issuer(): string;
  resources(): readonly string[];
  endpoint(path: string): string;
  /** Whether the issuer is on this machine (http allowed, the local user honoured). */
  loopback(): boolean;
  scopeNames(): string[];
  emit(event: AuthorizationEvent): void;
  /** Who the request counts against in the bounds per address (`callerAddress`, IPv6 by /64). */
  caller(req: IncomingMessage): string;
}

/** How long an access token is good for (`accessTokenSeconds`, 10 minutes). */
export const accessTokenSeconds = (options: AuthorizationServerOptions) => options.accessTokenSeconds ?? 600;

/** Whether a client is one of the embedding application's own pages (`firstPartyClients`). */
export function isFirstPartyClient(options: AuthorizationServerOptions, clientId: string): boolean {
  return (options.firstPartyClients ?? []).some((c) => c.clientId === clientId);
}

export function issuerIsLoopback(issuer: string): boolean {
  return isLoopbackHost(new URL(issuer).hostname);
}
