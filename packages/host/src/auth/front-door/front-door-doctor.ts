import { discoverIssuer, isLoopbackUrl } from '@toolhost/front-door/issuer-metadata';
import type { HostConfig } from '../../config/host-config.js';
import { authorizationConfigOf } from './front-door-config.js';
import { HOST_SCOPES } from './scopes.js';

export interface DoorCheck {
  ok: boolean;
  line: string;
}

/**
 * `doctor`'s checks of the MCP front door, where OAuth is configured: the public URL clients
 * and the issuer see (https), the issuer's metadata, its keys (or introspection endpoint), and
 * the resource metadata the host will serve. Nothing where no front door is configured.
 */
export async function frontDoorChecks(config: HostConfig, env: NodeJS.ProcessEnv): Promise<DoorCheck[]> {
  const mode = config.http?.authorization?.mode;
  const auth = authorizationConfigOf(config, env);
  if (!auth && mode !== 'host') return [];
  const checks: DoorCheck[] = [publicUrlCheck(config)];
  if (auth && mode !== 'host') checks.push(...(await issuerChecks(auth)));
  const resource = `${(config.http?.publicUrl ?? 'http://<bound address>').replace(/\/$/, '')}${config.http?.path ?? '/mcp'}`;
  const servers =
    mode === 'host'
      ? ['this host (its own authorization server)']
      : (auth?.authorizationServers ?? [auth?.issuer]);
  checks.push({
    ok: true,
    line: `resource metadata: /.well-known/oauth-protected-resource names resource ${resource}, authorization servers ${servers.join(', ')}, scopes ${HOST_SCOPES.join(' ')}`,
  });
  return checks;
}

function publicUrlCheck(config: HostConfig): DoorCheck {
  const publicUrl = config.http?.publicUrl;
  if (!publicUrl) {
    const loopback = ['127.0.0.1', 'localhost', '::1'].includes(config.http?.host ?? '127.0.0.1');
    return {
      ok: loopback,
      line: loopback
        ? 'public URL: not set; the resource is the loopback address (clients on this machine only)'
        : 'public URL: NOT SET: set http.publicUrl to the https URL clients reach this host at (the resource their tokens are bound to)',
    };
  }
  const https = publicUrl.startsWith('https:') || isLoopbackUrl(publicUrl);
  return {
    ok: https,
    line: https
      ? `public URL: ${publicUrl}`
      : `public URL: ${publicUrl} is NOT https: MCP clients (claude.ai, ChatGPT) and identity providers refuse plain http outside loopback`,
  };
}

async function issuerChecks(
  auth: NonNullable<ReturnType<typeof authorizationConfigOf>>,
): Promise<DoorCheck[]> {
  let metadata: Awaited<ReturnType<typeof discoverIssuer>>;
  try {
    metadata = await discoverIssuer(auth.issuer);
  } catch (e) {
    return [
      {
        ok: false,
        line: `issuer: ${auth.issuer} UNREACHABLE or serves no metadata: ${(e as Error).message}`,
      },
    ];
  }
  const checks: DoorCheck[] = [{ ok: true, line: `issuer: ${auth.issuer} answers its metadata` }];
  if (auth.introspection) {
    const endpoint = auth.introspection.endpoint ?? metadata.introspection_endpoint;
    checks.push(
      endpoint
        ? { ok: true, line: `introspection: ${endpoint} (as client ${auth.introspection.clientId})` }
        : {
            ok: false,
            line: 'introspection: the issuer names NO introspection endpoint; set introspection.endpoint',
          },
    );
    return checks;
  }
  const jwksUri = auth.jwksUri ?? metadata.jwks_uri;
  if (!jwksUri)
    return [
      ...checks,
      { ok: false, line: 'JWKS: the issuer names NO jwks_uri; set http.authorization.jwksUri' },
    ];
  try {
    const res = await fetch(jwksUri, { signal: AbortSignal.timeout(5_000) });
    const body = (await res.json()) as { keys?: unknown[] };
    const count = Array.isArray(body.keys) ? body.keys.length : 0;
    checks.push(
      res.ok && count > 0
        ? { ok: true, line: `JWKS: ${jwksUri} has ${count} key${count === 1 ? '' : 's'}` }
        : { ok: false, line: `JWKS: ${jwksUri} answered HTTP ${res.status} with ${count} keys` },
    );
  } catch (e) {
    checks.push({ ok: false, line: `JWKS: ${jwksUri} UNREACHABLE: ${(e as Error).message}` });
  }
  return checks;
}
