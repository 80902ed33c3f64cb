import type { AuthProvider, StoredConnection, TokenStore } from '@toolhost/core';
import type { RevokeResult } from '@toolhost/credentials';
import { hasBrowserSignIn, type SignInProvider } from '@toolhost/credentials/provider-kinds';
import { withinDateRange } from '@toolhost/credentials/token-stores';
import { StaticTokenAuthProvider } from '@toolhost/engine';
import { quoted } from '@toolhost/engine/internal';
import { HostError, hasCode } from './host-error.js';

/** A user's authorization with one provider, as a person sees it (never the token). */
export interface Connection {
  userId: string;
  providerId: string;
  scopes: string[];
  /** Which vendor account it acts for, in the vendor's words, where the host could read it. */
  account?: string;
  /** Epoch milliseconds when the access token expires (it is refreshed before), if it does. */
  expiresAt?: number;
  /** Disconnecting also revokes the grant at the vendor (it declares a revocation endpoint). */
  revokedAtVendorOnDisconnect: boolean;
}

/** A provider whose one static token every user's calls send (no stored connection): where it is set, never the token. */
export interface StaticTokenUse {
  providerId: string;
  staticToken: true;
  /** `CRM_AUTH_PROVIDER_TOKEN`, and the places it overrides (`…, which overrides auth.providers.….token`), where known. */
  setIn?: string;
  /** What is wrong with the token where it cannot be one (`a placeholder, not a real value`). */
  problem?: string;
}

export class ConnectionsError extends HostError {
  readonly code = 'connections_unavailable' as const;
  static override isInstance = hasCode<ConnectionsError>('connections_unavailable');
  override readonly name = 'ConnectionsError';
}

/** What disconnecting did: whether there was a connection, and whether the vendor revoked it. */
export type DisconnectResult = RevokeResult;

/** The users' connections with the host's OAuth providers: what `/connections` and the CLI show and end. */
export interface Connections {
  /** Whether `providerId` is an OAuth provider of this host (one whose connections can be ended). */
  isOAuthProvider(providerId: string): boolean;
  /** The stored authorizations, of one user or provider when given. */
  list(filter?: { userId?: string; providerId?: string }): Promise<Connection[]>;
  /** The providers whose one static token every user's calls send (all, or the one given): never the token. */
  staticTokens(filter?: { providerId?: string }): StaticTokenUse[];
  /**
   * Ends a user's connection with a provider: revoked at the vendor where it can be, and the
   * stored tokens deleted, so the user's next call asks them to authorize again.
   */
  disconnect(userId: string, providerId: string): Promise<DisconnectResult>;
}

/** Connections over the host's providers users sign in with in their browser and the token store (read only when asked). */
export function hostConnections(all: readonly AuthProvider[], tokenStore: () => TokenStore): Connections {
  const providers = all.filter(hasBrowserSignIn);
  const fixed = all.filter(
    (p): p is StaticTokenAuthProvider => p instanceof StaticTokenAuthProvider && p.configured,
  );
  const oauthProvider = (providerId: string): SignInProvider => {
    const provider = providers.find((p) => p.id === providerId);
    if (!provider) {
      const token = fixed.find((p) => p.id === providerId);
      if (token) throw new ConnectionsError(token.notAConnection);
      const known = providers.map((p) => p.id).join(', ') || 'none';
      throw new ConnectionsError(
        `No OAuth provider ${quoted(providerId)} is configured (OAuth providers: ${known}).`,
      );
    }
    return provider;
  };
  return {
    isOAuthProvider: (providerId) => providers.some((p) => p.id === providerId),
    async list(filter = {}) {
      // A static token is no stored connection: none listed (staticTokens names its provider).
      if (fixed.some((p) => p.id === filter.providerId)) return [];
      if (filter.providerId !== undefined) oauthProvider(filter.providerId);
      if (providers.length === 0) return [];
      const store = tokenStore();
      if (!store.list) throw new ConnectionsError('The token store in use cannot list its connections.');
      const oauth = new Map(providers.map((p) => [p.id, p]));
      const rows: StoredConnection[] = await store.list(filter);
      return rows
        .filter((r) => oauth.has(r.providerId))
        .map((r) => ({
          userId: r.userId,
          providerId: r.providerId,
          scopes: r.token.scopes,
          ...(r.token.account ? { account: r.token.account } : {}),
          // Tokens stored before the credentials took an expiry past a Date's range for none may
          // hold one (or Infinity), which would fail every page and listing: they do not expire.
          ...(withinDateRange(r.token.expiresAt) ? { expiresAt: r.token.expiresAt } : {}),
          revokedAtVendorOnDisconnect: oauth.get(r.providerId)!.signIn.revokesAtVendor,
        }))
        .sort((a, b) => a.userId.localeCompare(b.userId) || a.providerId.localeCompare(b.providerId));
    },
    disconnect: (userId, providerId) => oauthProvider(providerId).signIn.revoke(userId),
    staticTokens: (filter = {}) =>
      fixed
        .filter((p) => filter.providerId === undefined || p.id === filter.providerId)
        .map((p) => ({
          providerId: p.id,
          staticToken: true,
          ...(p.setIn ? { setIn: p.setIn } : {}),
          ...(p.problem ? { problem: p.problem } : {}),
        })),
  };
}

/** A host, as these functions take it: its users' connections (`Host.serving.connections`). */
type WithConnections = { readonly serving: { readonly connections: Connections } };

/** The stored authorizations, of one user or provider when given. */
export function listConnections(
  host: WithConnections,
  filter: { userId?: string; providerId?: string } = {},
): Promise<Connection[]> {
  return host.serving.connections.list(filter);
}

/**
 * Ends a user's connection with a provider: revoked at the vendor where it can be, and the
 * stored tokens deleted, so the user's next call asks them to authorize again.
 */
export function disconnect(
  host: WithConnections,
  userId: string,
  providerId: string,
): Promise<DisconnectResult> {
  return host.serving.connections.disconnect(userId, providerId);
}
