import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';
import proxyaddr from 'proxy-addr';

/** The address the connection came from (the proxy's, behind a reverse proxy). */
export function socketAddress(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}

/** The reverse proxies in front of the server, and how to speak of them to the operator. */
export interface TrustedProxies {
  /** IP addresses, CIDR ranges, or `loopback`, `linklocal`, `uniquelocal`. */
  trusted: readonly string[];
  /** Where the list is set, as the embedding application's operator knows it (errors and warnings name it). */
  setting?: string;
  /** Told once when a request arrives through a proxy while no proxy is trusted. */
  warn?: (message: string) => void;
}

/**
 * Who a request comes from: the connection's address, or behind the trusted proxies the first
 * address in `X-Forwarded-For` that is not one of them, read from the right so that a client
 * cannot name itself by sending the header. With no proxy trusted, a request carrying the header
 * is said once (every client behind that proxy then shares its bounds). A list entry that is no
 * address or range throws, naming the setting.
 */
export function callerAddressBehind(proxies: TrustedProxies): (req: IncomingMessage) => string {
  const setting = proxies.setting ?? 'trustedProxies';
  if (proxies.trusted.length === 0) {
    let warned = false;
    return (req) => {
      if (!warned && req.headers['x-forwarded-for'] !== undefined) {
        warned = true;
        proxies.warn?.(
          `Requests arrive through a proxy (X-Forwarded-For) but ${setting} is not set: the authorization server counts every client behind it as one address`,
        );
      }
      return socketAddress(req);
    };
  }
  let trust: ReturnType<typeof proxyaddr.compile>;
  try {
    trust = proxyaddr.compile([...proxies.trusted]);
  } catch (e) {
    throw new TypeError(
      `${setting}: ${(e as Error).message}; expected IP addresses, CIDR ranges, or loopback, linklocal, uniquelocal`,
    );
  }
  return (req) => proxyaddr(req, trust);
}

/**
 * What a per-caller bound counts under: an IPv4 address as it is (also when written as
 * IPv4-mapped IPv6), an IPv6 address by its /64, since one subscriber is given at least that
 * many and could otherwise take a fresh count per request.
 */
export function callerBucket(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...prefix, 0, 0, 0, 0]).toString()}/64`;
}
