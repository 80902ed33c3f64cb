import type { HostConfig } from '../../config/host-config.js';
import { ConfigError } from '../../config/load-config.js';
import { CachedVerifier } from './cached-verifier.js';
import type { FrontDoorSettings } from './front-door.js';
import { IntrospectionVerifier } from './introspection-verifier.js';
import { discoverIssuer, type IssuerMetadata } from './issuer-metadata.js';
import { TOOLS_READ, TOOLS_WRITE } from './scopes.js';
import {
  allowedAlgorithms,
  remoteJwksVerifier,
  type TokenVerifier,
  unavailable,
  type Verification,
} from './token-verifier.js';

/** `http.authorization` in mode `issuer`: an issuer is named. */
type AuthorizationConfig = NonNullable<NonNullable<HostConfig['http']>['authorization']> & { issuer: string };

/** The config's `http.authorization`, with the environment's TOOLHOST_AUTH_* over it. */
export function authorizationConfigOf(
  config: HostConfig,
  env: NodeJS.ProcessEnv,
): AuthorizationConfig | undefined {
  const file = config.http?.authorization;
  // Mode `host`: the host's own authorization server issues the tokens and checks them itself.
  if (file?.mode === 'host') return undefined;
  const issuer = env.TOOLHOST_AUTH_ISSUER?.trim() || file?.issuer;
  if (!issuer) {
    if (file?.mode === 'issuer') {
      throw new ConfigError(
        "http.authorization.mode is 'issuer' but no issuer is named: set http.authorization.issuer (or TOOLHOST_AUTH_ISSUER) to your identity provider's issuer URL",
      );
    }
    return undefined;
  }
  const audience = env.TOOLHOST_AUTH_AUDIENCE?.split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  const secret = env.TOOLHOST_AUTH_INTROSPECTION_SECRET?.trim();
  const subjectClaim = env.TOOLHOST_AUTH_SUBJECT_CLAIM?.trim();
  return {
    ...file,
    issuer,
    ...(audience?.length ? { audience: audience as [string, ...string[]] } : {}),
    ...(subjectClaim ? { subjectClaim } : {}),
    ...(file?.introspection && secret
      ? { introspection: { ...file.introspection, clientSecret: secret } }
      : {}),
  };
}

/**
 * Mode "your identity provider": the front door's settings from `http.authorization` (and
 * TOOLHOST_AUTH_*), or undefined where it is not configured. Problems a person can fix in the
 * config are reported now, not at the first request.
 */
export function frontDoorFromConfig(
  config: HostConfig,
  env: NodeJS.ProcessEnv,
): FrontDoorSettings | undefined {
  const auth = authorizationConfigOf(config, env);
  if (!auth) return undefined;
  const where = 'http.authorization';
  let issuerUrl: URL;
  try {
    issuerUrl = new URL(auth.issuer);
  } catch {
    throw new ConfigError(
      `${where}.issuer must be a URL (TOOLHOST_AUTH_ISSUER), e.g. https://login.example.com/realms/team`,
    );
  }
  if (issuerUrl.protocol !== 'https:' && !isLoopbackHost(issuerUrl.hostname)) {
    throw new ConfigError(
      `${where}.issuer must be an https URL (plain http only for an issuer on this machine)`,
    );
  }
  try {
    allowedAlgorithms(auth.algorithms);
  } catch (e) {
    throw new ConfigError(`${where}.algorithms: ${(e as Error).message}`);
  }
  if (auth.introspection && !auth.introspection.clientSecret) {
    throw new ConfigError(
      `${where}.introspection needs the client's secret: set TOOLHOST_AUTH_INTROSPECTION_SECRET (or introspection.clientSecret)`,
    );
  }
  return {
    authorizationServers: auth.authorizationServers ?? [auth.issuer],
    scopeNames: {
      [TOOLS_READ]: auth.scopes?.read ?? TOOLS_READ,
      [TOOLS_WRITE]: auth.scopes?.write ?? TOOLS_WRITE,
    },
    verifier: (resource, onFirstUse) =>
      new CachedVerifier(new IssuerVerifier(auth, auth.audience ?? [resource]), {
        ttlMs: (auth.cacheSeconds ?? 60) * 1000,
        ...(onFirstUse ? { onAccepted: onFirstUse } : {}),
      }),
  };
}

const isLoopbackHost = (hostname: string) =>
  hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]';

/**
 * The issuer's check, built on first use from its metadata: JWTs against its JWKS, or opaque
 * tokens by introspection. A failed discovery is tried again at the next token (the issuer may
 * have been briefly away at start), not remembered.
 */
class IssuerVerifier implements TokenVerifier {
  private ready: Promise<TokenVerifier> | undefined;

  constructor(
    private readonly auth: AuthorizationConfig,
    private readonly audience: readonly string[],
  ) {}

  async verify(token: string): Promise<Verification> {
    let verifier: TokenVerifier;
    try {
      this.ready ??= this.build();
      verifier = await this.ready;
    } catch {
      this.ready = undefined;
      return unavailable("the issuer's metadata could not be read");
    }
    return verifier.verify(token);
  }

  private async build(): Promise<TokenVerifier> {
    const { auth, audience } = this;
    const needsMetadata = auth.introspection ? !auth.introspection.endpoint : !auth.jwksUri;
    const metadata: IssuerMetadata | undefined = needsMetadata
      ? await discoverIssuer(auth.issuer)
      : undefined;
    const rules = {
      issuer: auth.issuer,
      audience,
      ...(auth.algorithms ? { algorithms: auth.algorithms } : {}),
      ...(auth.subjectClaim ? { subjectClaim: auth.subjectClaim } : {}),
    };
    if (auth.introspection) {
      const endpoint = auth.introspection.endpoint ?? metadata?.introspection_endpoint;
      if (!endpoint) throw new Error('the issuer names no introspection endpoint');
      return new IntrospectionVerifier({
        ...rules,
        endpoint,
        clientId: auth.introspection.clientId,
        clientSecret: auth.introspection.clientSecret ?? '',
      });
    }
    const jwksUri = auth.jwksUri ?? metadata?.jwks_uri;
    if (!jwksUri) throw new Error('the issuer names no jwks_uri');
    return remoteJwksVerifier({ ...rules, jwksUri });
  }
}
