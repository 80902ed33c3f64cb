import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';
import { ConfigError } from '../config/load-config.js';
import type { Logger } from '../logger.js';

/** `http.trustedProxies`, or TOOLHOST_TRUSTED_PROXIES over it. */
export function trustedProxiesOf(
  configured: readonly string[] | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const fromEnv = env.TOOLHOST_TRUSTED_PROXIES?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return fromEnv?.length ? fromEnv : [...(configured ?? [])];
}

/**
 * Who a request comes from, for bounds per caller: the connection's address, or behind the
 * trusted proxies the first address in `X-Forwarded-For` that is not one of them (read from
 * the right, so that a client cannot name itself by sending the header). Without trusted
 * proxies, a request carrying the header is said once in the log: every client behind that
 * proxy then shares one bound.
 */
export function callerAddressOf(
  trusted: readonly string[],
  logger?: Logger,
): (req: IncomingMessage) => string {
  if (trusted.length === 0) {
    let warned = false;
    return (req) => {
      if (!warned && req.headers['x-forwarded-for'] !== undefined) {
        warned = true;
        logger?.warn(
          'Requests arrive through a proxy (X-Forwarded-For) but http.trustedProxies is not set: the authorization server counts every client behind it as one address',
        );
      }
      return req.socket.remoteAddress ?? 'unknown';
    };
  }
  let trust: ReturnType<typeof proxyaddr.compile>;
  try {
    trust = proxyaddr.compile([...trusted]);
  } catch (e) {
    throw new ConfigError(
      `http.trustedProxies: ${(e as Error).message}; expected IP addresses, CIDR ranges, or loopback, linklocal, uniquelocal`,
    );
  }
  return (req) => proxyaddr(req, trust);
}
