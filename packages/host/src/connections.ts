import type { StoredConnection } from '@toolhost/core';
import { OAuthAuthProvider } from './auth/oauth-provider.js';
import type { Host } from './host.js';
import { HostError, hasCode } from './host-error.js';
import { HostServices, resolveService } from './services.js';

/** A user's authorization with one provider, as a person sees it (never the token). */
export interface Connection {
  userId: string;
  providerId: string;
  scopes: string[];
  /** Epoch milliseconds when the access token expires (it is refreshed before), if it does. */
  expiresAt?: number;
  /** Disconnecting also revokes the grant at the vendor (it declares a revocation endpoint). */
  revokedAtVendorOnDisconnect: boolean;
}

export class ConnectionsError extends HostError {
  readonly code = 'connections_unavailable' as const;
  static override isInstance = hasCode<ConnectionsError>('connections_unavailable');
  override readonly name = 'ConnectionsError';
}

/** Whether `providerId` is an OAuth provider of this host (one whose connections can be ended). */
export function isOAuthProvider(host: Host, providerId: string): boolean {
  return host.oauthProviders.some((p) => p.id === providerId && p instanceof OAuthAuthProvider);
}

function oauthProvider(host: Host, providerId: string): OAuthAuthProvider {
  const provider = host.oauthProviders.find((p) => p.id === providerId);
  if (!(provider instanceof OAuthAuthProvider)) {
    const known = host.oauthProviders.map((p) => p.id).join(', ') || 'none';
    throw new ConnectionsError(
      `No OAuth provider '${providerId}' is configured (OAuth providers: ${known}).`,
    );
  }
  return provider;
}

/** The stored authorizations, of one user or provider when given. */
export async function listConnections(
  host: Host,
  filter: { userId?: string; providerId?: string } = {},
): Promise<Connection[]> {
  if (host.oauthProviders.length === 0) return [];
  const store = resolveService(host.container, HostServices.tokenStore);
  if (!store.list) throw new ConnectionsError('The token store in use cannot list its connections.');
  const oauth = new Map(host.oauthProviders.map((p) => [p.id, p]));
  const rows: StoredConnection[] = await store.list(filter);
  return rows
    .filter((r) => oauth.has(r.providerId))
    .map((r) => ({
      userId: r.userId,
      providerId: r.providerId,
      scopes: r.token.scopes,
      ...(r.token.expiresAt !== undefined ? { expiresAt: r.token.expiresAt } : {}),
      revokedAtVendorOnDisconnect: oauth.get(r.providerId)!.revokesAtVendor,
    }))
    .sort((a, b) => a.userId.localeCompare(b.userId) || a.providerId.localeCompare(b.providerId));
}

/**
 * Ends a user's connection with a provider: revoked at the vendor where it can be, and the
 * stored tokens deleted, so the user's next call asks them to authorize again.
 */
export async function disconnect(
  host: Host,
  userId: string,
  providerId: string,
): Promise<{ existed: boolean; revokedAtVendor: boolean; vendorFailure?: string }> {
  return oauthProvider(host, providerId).disconnect(userId);
}
