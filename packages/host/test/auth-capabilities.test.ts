import type { AuthProviderSetup, CredentialResult } from '@toolhost/core';
import {
  type BrowserSignIn,
  MemoryTokenStore,
  type PendingFlow,
  type RevokeResult,
  type SignInProvider,
} from '@toolhost/credentials';
import { afterEach, describe, expect, it } from 'vitest';
import { disconnect, listConnections } from '../src/connections.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { echoOAuthConfig, fixtureApp } from './support.js';

/**
 * An embedder's own provider, of no class the host knows: a company single sign-on that
 * hands out the vendor's tokens. It says what it can do (set-up state, a browser sign-in,
 * refresh reports and a stop), and the host should treat it by that alone.
 */
function embedderProvider() {
  const seen: string[] = [];
  const flow: PendingFlow = {
    provider: 'echo-auth',
    flowId: 'flow-1',
    state: 'state-1',
    userId: 'alice',
    authorizeUrl: 'https://sso.invalid/authorize?flow=flow-1',
    opened: false,
  };
  const signIn: BrowserSignIn = {
    redirectUri: 'https://sso.invalid/back',
    hasExplicitRedirectUri: true,
    revokesAtVendor: true,
    setRedirectBase: (base) => seen.push(`base ${base}`),
    start: async (userId) => ({ url: `https://sso.invalid/start/${userId}`, flowId: 'flow-2' }),
    pendingFlow: async (flowId) => (flowId === flow.flowId ? flow : undefined),
    markOpened: async (flowId) => {
      seen.push(`opened ${flowId}`);
    },
    complete: async () => ({ userId: 'alice', flow }),
    revoke: async (userId): Promise<RevokeResult> => {
      seen.push(`revoke ${userId}`);
      return { existed: true, revokedAtVendor: true };
    },
    whenAuthorized: () => {},
  };
  const provider: SignInProvider & {
    setup(): AuthProviderSetup;
    onRefreshed(l: unknown): () => void;
    onLockWaited(l: unknown): () => void;
    close(): Promise<void>;
  } = {
    id: 'echo-auth',
    signIn,
    getCredentials: async (): Promise<CredentialResult> => ({ kind: 'authorization_required' }),
    setup: () => ({ ok: false, detail: 'sign in to the company SSO once as the operator' }),
    onRefreshed: () => () => {},
    onLockWaited: () => () => {},
    close: async () => {
      seen.push('close');
    },
  };
  return { provider, seen };
}

let host: Host | undefined;
let server: HttpServerHandle | undefined;
afterEach(async () => {
  await server?.close();
  await host?.close();
  server = undefined;
  host = undefined;
});

describe("an embedder's auth provider, told apart by what it can do rather than its class", () => {
  it('gets the sign-in pages, connections, its own set-up check and a stop', async () => {
    const { provider, seen } = embedderProvider();
    const tokenStore = new MemoryTokenStore();
    await tokenStore.set('echo-auth', 'alice', { accessToken: 'a', scopes: ['items.read'] });
    host = await createHost(
      { plugins: ['toolhost-plugin-echo'] },
      { configDir: fixtureApp, env: {}, authProviders: [provider], tokenStore },
    );

    expect(host.oauthProviders.map((p) => p.id)).toEqual(['echo-auth']);
    const [echo] = await host.serving.readiness();
    expect(echo?.checks).toContainEqual({
      what: 'auth provider echo-auth',
      ok: false,
      detail: 'sign in to the company SSO once as the operator',
    });
    expect(await listConnections(host)).toEqual([
      { userId: 'alice', providerId: 'echo-auth', scopes: ['items.read'], revokedAtVendorOnDisconnect: true },
    ]);
    expect(await disconnect(host, 'alice', 'echo-auth')).toEqual({ existed: true, revokedAtVendor: true });

    server = await serveHttp(host, { port: 0 });
    const origin = new URL(server.url).origin;
    const opened = await fetch(`${origin}/oauth/start/echo-auth?flow=flow-1`, {
      redirect: 'manual',
    });
    expect(opened.status).toBe(302);
    expect(opened.headers.get('location')).toBe('https://sso.invalid/authorize?flow=flow-1');

    await server.close();
    server = undefined;
    await host.close();
    host = undefined;
    expect(seen).toEqual(['revoke alice', `base ${origin}`, 'opened flow-1', 'close']);
  });

  it("serves the host's own OAuth provider the same way, by its sign-in and set-up answer", async () => {
    host = await createHost(echoOAuthConfig, { configDir: fixtureApp, env: {} });
    expect(host.oauthProviders.map((p) => p.id)).toEqual(['echo-auth']);
    const [echo] = await host.serving.readiness();
    expect(echo?.checks).toContainEqual({
      what: 'auth provider echo-auth',
      ok: true,
      detail: 'OAuth client configured: each user authorizes on first use',
    });
  });
});
