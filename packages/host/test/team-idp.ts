import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import Provider, { errors } from 'oidc-provider';

/**
 * A team's identity provider for tests: `oidc-provider` (a certified OpenID provider nobody
 * here wrote) on a free loopback port, configured as a team would for an MCP server: dynamic
 * client registration, resource indicators (RFC 8707) issuing JWT access tokens whose audience
 * is the resource asked for, and only for the resources it knows. The person signs in on its
 * development login and consent pages (any login name becomes the account id).
 */
export interface TeamIdp {
  issuer: string;
  /** Signs a token with the IdP's own key, as it would, with any claims (for bad-input tests). */
  sign(claims: Record<string, unknown>, header?: { kid?: string; alg?: string }): Promise<string>;
  /** Adds a resource the IdP issues tokens for. */
  allowResource(resource: string): void;
  close(): Promise<void>;
}

export async function startTeamIdp(
  options: {
    resources?: string[];
    accessTokenTtl?: number;
    /** `opaque`: access tokens the resource checks by introspection, as `introspector`. */
    accessTokenFormat?: 'jwt' | 'opaque';
    introspector?: { clientId: string; clientSecret: string };
  } = {},
): Promise<TeamIdp> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const privateJwk: JWK = { ...(await exportJWK(privateKey)), kid: 'team-key-1', alg: 'RS256', use: 'sig' };
  const resources = new Set(options.resources ?? []);
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    jwks: { keys: [privateJwk] },
    // The resource server's own confidential client, which may introspect tokens.
    clients: options.introspector
      ? [
          {
            client_id: options.introspector.clientId,
            client_secret: options.introspector.clientSecret,
            grant_types: [],
            response_types: [],
            redirect_uris: [],
            token_endpoint_auth_method: 'client_secret_basic',
          },
        ]
      : [],
    findAccount: async (_ctx, id) => ({
      accountId: id,
      claims: async () => ({ sub: id, email: `${id}@team.test`, email_verified: true }),
    }),
    // The resource's scopes are the IdP's too: clients register with the scopes they will ask for.
    scopes: ['openid', 'offline_access', 'tools:read', 'tools:write'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
    },
    pkce: { required: () => true },
    ttl: {
      AccessToken: options.accessTokenTtl ?? 600,
      AuthorizationCode: 60,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
      RefreshToken: 3600,
    },
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (!resources.has(resource)) throw new errors.InvalidTarget();
          return {
            scope: 'tools:read tools:write',
            audience: resource,
            accessTokenTTL: options.accessTokenTtl ?? 600,
            ...(options.accessTokenFormat === 'opaque'
              ? { accessTokenFormat: 'opaque' as const }
              : { accessTokenFormat: 'jwt' as const, jwt: { sign: { alg: 'RS256' as const } } }),
          };
        },
      },
    },
  });
  // Loopback http for tests; a real deployment is https.
  provider.proxy = false;
  http.on('request', provider.callback());
  return {
    issuer,
    allowResource: (resource) => void resources.add(resource),
    async sign(claims, header = {}) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        iss: issuer,
        iat: now,
        exp: now + 300,
        scope: 'tools:read tools:write',
        ...claims,
      })
        .setProtectedHeader({ alg: header.alg ?? 'RS256', kid: header.kid ?? 'team-key-1', typ: 'at+jwt' })
        .sign(privateKey);
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
