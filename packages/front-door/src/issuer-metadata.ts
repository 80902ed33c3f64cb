import * as oauth from 'oauth4webapi';

/** What the front door reads of an issuer's metadata (RFC 8414, OpenID Connect Discovery). */
export type IssuerMetadata = oauth.AuthorizationServer;

/** Plain http is allowed only for an issuer on this machine (tests, a local IdP). */
export function isLoopbackUrl(url: string): boolean {
  const { hostname } = new URL(url);
  return hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]' || hostname === '::1';
}

export const requestOptionsFor = (issuer: string, timeoutMs: number) => ({
  signal: AbortSignal.timeout(timeoutMs),
  ...(isLoopbackUrl(issuer) ? { [oauth.allowInsecureRequests]: true } : {}),
});

/**
 * The issuer's metadata: OpenID Connect Discovery first (Keycloak, Entra ID, Okta, Auth0,
 * Google all serve it), then RFC 8414's well-known path. The answer's `issuer` must be the
 * issuer asked for (oauth4webapi checks it), so that a misconfigured URL is caught here and
 * not as every token's `iss` failing.
 */
export async function discoverIssuer(issuer: string, timeoutMs = 5_000): Promise<IssuerMetadata> {
  const url = new URL(issuer);
  let firstError: unknown;
  for (const algorithm of ['oidc', 'oauth2'] as const) {
    try {
      const response = await oauth.discoveryRequest(url, {
        algorithm,
        ...requestOptionsFor(issuer, timeoutMs),
      });
      return await oauth.processDiscoveryResponse(url, response);
    } catch (e) {
      firstError ??= e;
    }
  }
  throw new Error(`The issuer ${issuer} serves no metadata: ${(firstError as Error).message}`);
}
