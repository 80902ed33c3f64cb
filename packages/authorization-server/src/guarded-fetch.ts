import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { isLoopbackHost } from './redirect-uris.js';

/** Limits of a fetch the server makes for a URL a stranger gave it. */
export interface GuardedFetchLimits {
  /** Allow http and loopback addresses (a host serving only this machine). */
  allowLoopback: boolean;
  timeoutMs: number;
  maxBytes: number;
  /** Extra certificate authorities (PEM) trusted for https, besides the system's. */
  ca?: string[];
}

export class GuardedFetchError extends Error {}

const NOT_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  // Local-use NAT64 (RFC 8215): a network's own translator, to its private IPv4 addresses.
  ['64:ff9b:1::', 48],
  // Site-local (deprecated, RFC 3879), still routed inside some networks.
  ['fec0::', 10],
  // Teredo and 6to4 carry an IPv4 address inside: 2002:a00:1:: is 10.0.0.1 through a tunnel.
  ['2001::', 32],
  ['2002::', 16],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv6');

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Whether the server may connect to this address: public ones, and loopback where allowed. */
export function addressAllowed(address: string, allowLoopback: boolean): boolean {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  if (allowLoopback && LOOPBACK.check(address, family)) return true;
  const carried = family === 'ipv6' ? carriedIPv4(address) : undefined;
  if (carried) return addressAllowed(carried.address, allowLoopback && carried.thisMachine);
  return !NOT_PUBLIC.check(address, family);
}

/**
 * The IPv4 address an IPv6 one stands for, judged as that address: IPv4-mapped (::ffff:0:0/96,
 * this machine's own stack), IPv4-compatible (::/96, :: and ::1 among them) and the NAT64
 * well-known prefix (64:ff9b::/96, RFC 6052: a translator connects to the IPv4 address in its
 * last 32 bits, public ones only). Refused wholesale, a client behind NAT64 could not be fetched
 * at all; let through, 64:ff9b::a00:1 would reach 10.0.0.1 from the translator. The loopback
 * of a compatible or translated one is not this machine's.
 */
function carriedIPv4(address: string): { address: string; thisMachine: boolean } | undefined {
  if (!ipaddr.IPv6.isValid(address)) return undefined;
  const parts = ipaddr.IPv6.parse(address).parts;
  const [a, b, c, d, e, f, hi, lo] = parts as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const v4 = `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeroed = c === 0 && d === 0 && e === 0;
  // ipaddr.js reads a compatible ::a.b.c.d as mapped: only a mapped one's text says ffff.
  if (a === 0 && b === 0 && zeroed && f === 0xffff)
    return { address: v4, thisMachine: /ffff/i.test(address) };
  if (a === 0 && b === 0 && zeroed && f === 0) return { address: v4, thisMachine: false };
  if (a === 0x64 && b === 0xff9b && zeroed && f === 0) return { address: v4, thisMachine: false };
  return undefined;
}

/**
 * Resolves a name and refuses it when any address is not public: the check and the
 * connection use the same answer, so a name cannot pass as public then rebind to 10.0.0.1.
 */
function guardedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 4);
      const refused = addresses.find((a) => !addressAllowed(a.address, allowLoopback));
      if (refused || addresses.length === 0) {
        return callback(
          new GuardedFetchError(`${hostname} resolves to an address that is not public`),
          '',
          4,
        );
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const [first] = addresses;
      callback(null, first!.address, first!.family);
    });
  };
}

export interface GuardedResponse {
  status: number;
  contentType: string;
  cacheControl: string;
  body: string;
}

/**
 * GETs a URL a stranger gave (a client id metadata document): https only (http only to
 * loopback, where allowed), public addresses only, no redirects followed, the whole exchange
 * within `timeoutMs` and the body within `maxBytes`.
 */
export function guardedGet(target: URL, limits: GuardedFetchLimits): Promise<GuardedResponse> {
  const loopbackTarget = isLoopbackHost(target.hostname);
  if (
    target.protocol !== 'https:' &&
    !(target.protocol === 'http:' && limits.allowLoopback && loopbackTarget)
  ) {
    return Promise.reject(new GuardedFetchError('only https URLs are fetched'));
  }
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) && !addressAllowed(literal, limits.allowLoopback)) {
    return Promise.reject(new GuardedFetchError(`${target.hostname} is not a public address`));
  }
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(target, {
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': 'toolhost-authorization-server' },
      lookup: guardedLookup(limits.allowLoopback),
      ...(limits.ca ? { ca: limits.ca } : {}),
      agent: false,
    });
    const timer = setTimeout(
      () => req.destroy(new GuardedFetchError(`no whole answer within ${limits.timeoutMs} ms`)),
      limits.timeoutMs,
    );
    const fail = (e: Error) => {
      clearTimeout(timer);
      reject(
        e instanceof GuardedFetchError ? e : new GuardedFetchError(`could not be fetched (${e.message})`),
      );
    };
    req.on('error', fail);
    req.on('response', (res: IncomingMessage) => {
      if (Number(res.headers['content-length'] ?? 0) > limits.maxBytes) {
        req.destroy(new GuardedFetchError(`the answer is larger than ${limits.maxBytes} bytes`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxBytes) {
          req.destroy(new GuardedFetchError(`the answer is larger than ${limits.maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', fail);
      res.on('end', () => {
        clearTimeout(timer);
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          cacheControl: String(res.headers['cache-control'] ?? ''),
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    req.end();
  });
}
