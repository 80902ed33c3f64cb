import { randomBytes } from 'node:crypto';
import { discoverIssuer } from '@toolhost/front-door/issuer-metadata';
import type * as oauth from 'oauth4webapi';
import { authorizationConfigOf } from '../auth/front-door/front-door-config.js';
import { TOOLS_READ } from '../auth/front-door/scopes.js';
import type { Logger } from '../logger.js';
import { FrontDoorSignIn, PAGES_CLIENT_ID } from './front-door-sign-in.js';
import type { ServerState } from './server-state.js';

/**
 * How `/connections` signs people in where OAuth is configured: in mode `host`, as the own
 * authorization server's built-in client; in mode `issuer`, as the client the operator
 * registered at the identity provider (`http.authorization.pagesClient`). Undefined where
 * neither applies (the access token form alone).
 */
/** What the pages' sign-in reads of the HTTP server's state. */
export type PagesSignInState = Pick<ServerState, 'host' | 'frontDoor' | 'base' | 'ownAuthorizationServer'> & {
  options: { logger?: Logger };
};

export function pagesSignInOf(
  state: PagesSignInState,
  secureCookies: () => boolean,
  sharedKey: Buffer | undefined,
): FrontDoorSignIn | undefined {
  const { host, options } = state;
  const common = {
    resource: () => state.frontDoor()?.resource ?? '',
    base: state.base,
    secureCookies,
    key: sharedKey ?? randomBytes(32),
    ...(options.logger ? { logger: options.logger } : {}),
    // The same check as every MCP call: the person here is the user their tools run as.
    userOf: async (token: string) => {
      // No static token counts here: only the front door's verifier decides.
      const caller = await state.frontDoor()?.admit(`Bearer ${token}`);
      return caller && 'userId' in caller ? caller.userId : undefined;
    },
  };
  if (host.config.http.authorization?.mode === 'host') {
    return new FrontDoorSignIn({
      ...common,
      clientId: PAGES_CLIENT_ID,
      scope: TOOLS_READ,
      server: async () => {
        const issuer = state.ownAuthorizationServer?.issuer();
        if (!issuer) throw new Error('the authorization server is not open');
        return {
          issuer,
          authorization_endpoint: `${issuer}/auth/authorize`,
          token_endpoint: `${issuer}/auth/token`,
        } satisfies oauth.AuthorizationServer;
      },
    });
  }
  const env = host.serving.env;
  const auth = authorizationConfigOf(host.config, env);
  const client = auth?.pagesClient;
  if (!auth || !client) return undefined;
  const secret = env.TOOLHOST_PAGES_CLIENT_SECRET?.trim() || client.clientSecret;
  let metadata: Promise<oauth.AuthorizationServer> | undefined;
  return new FrontDoorSignIn({
    ...common,
    clientId: client.clientId,
    ...(secret ? { clientSecret: secret } : {}),
    scope: auth.scopes?.read ?? TOOLS_READ,
    // Discovered once; a failure is tried again at the next sign-in.
    server: () => {
      metadata ??= discoverIssuer(auth.issuer).catch((e: unknown) => {
        metadata = undefined;
        throw e;
      });
      return metadata;
    },
  });
}
