import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';

/** The address the connection came from (the proxy's, behind a reverse proxy). */
export function socketAddress(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
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
