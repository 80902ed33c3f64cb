import { type DoorCheck, issuerChecks } from '@toolhost/front-door/issuer-checks';
import { isLoopbackUrl } from '@toolhost/front-door/issuer-metadata';
import type { HostConfig } from '../../config/host-config.js';
import { authorizationConfigOf } from './front-door-config.js';
import { HOST_SCOPES } from './scopes.js';

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
