import type { TokenVerifier } from '@toolhost/front-door';
import type { FrontDoorSettings } from '@toolhost/front-door/front-door';
import { allowedAlgorithms } from '@toolhost/front-door/jwt-algorithms';
import type { HostConfig } from '../../config/host-config.js';
import { ConfigError } from '../../config/load-config.js';
import { commaList } from '../../config/overrides.js';
import { type HostScope, TOOLS_READ, TOOLS_WRITE } from './scopes.js';

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
  const audience = commaList(env.TOOLHOST_AUTH_AUDIENCE ?? '');
  const secret = env.TOOLHOST_AUTH_INTROSPECTION_SECRET?.trim();
  const subjectClaim = env.TOOLHOST_AUTH_SUBJECT_CLAIM?.trim();
  return {
    ...file,
    issuer,
    ...(audience.length ? { audience: audience as [string, ...string[]] } : {}),
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
): FrontDoorSettings<HostScope> | undefined {
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
      verifierOnFirstToken(async () => {
        const { CachedVerifier, IssuerVerifier } = await import('@toolhost/front-door');
        return new CachedVerifier(new IssuerVerifier(auth, auth.audience ?? [resource]), {
          ttlMs: (auth.cacheSeconds ?? 60) * 1000,
          ...(onFirstUse ? { onAccepted: onFirstUse } : {}),
        });
      }),
  };
}

/**
 * A verifier whose module (and `jose`, tens of milliseconds of CPU) loads at the first token
 * presented, not while the host starts: the cold start the bench measures answers
 * `initialize` and `tools/list` without it.
 */
function verifierOnFirstToken(build: () => Promise<TokenVerifier>): TokenVerifier {
  let built: Promise<TokenVerifier> | undefined;
  return {
    verify: async (token) => {
      built ??= build();
      return (await built).verify(token);
    },
  };
}

const isLoopbackHost = (hostname: string) =>
  hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]';
