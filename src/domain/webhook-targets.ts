import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { Config } from '../config.js';

/**
 * Where a webhook may be sent (docs/api.md, "Events and webhooks", "Where endpoints may point"). One
 * check, used when an endpoint is registered, before every delivery and for any redirect (which is
 * never followed: a 3xx is recorded as the attempt's answer): the host is resolved and every
 * address it resolves to must be public; the delivery then connects to exactly the addresses that
 * were checked (`pinnedLookup`), so a name cannot resolve to something else between the check and
 * the connection (DNS rebinding).
 */

/** Every address a host name resolves to (injectable: tests resolve names without any DNS). */
export type HostLookup = (hostname: string) => Promise<LookupAddress[]>;

export const systemLookup: HostLookup = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) =>
      err ? reject(err) : resolve(addresses),
    );
  });

export interface TargetRule {
  /**
   * Private, loopback and link-local targets allowed: the sandbox while it listens on loopback
   * alone, or `WEBHOOK_ALLOW_PRIVATE=true`.
   */
  allowPrivate: boolean;
  lookup: HostLookup;
}

/**
 * Whether nobody but this machine can reach the server: it listens on a loopback address, is not
 * behind a reverse proxy (`TRUST_PROXY`) and announces no public base URL on another host. Then
 * whoever registers an endpoint can already reach whatever it points to.
 */
export function listensOnLoopbackOnly(
  config: Pick<Config, 'host' | 'trustProxy' | 'publicBaseUrl'>,
): boolean {
  if (!isLoopbackName(config.host.trim()) || config.trustProxy) return false;
  if (!config.publicBaseUrl) return true;
  try {
    return isLoopbackName(new URL(config.publicBaseUrl).hostname);
  } catch {
    return false;
  }
}

function isLoopbackName(hostname: string): boolean {
  const host = normalizedHost(hostname);
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

/** The rule the settings give: private targets only on a loopback-only sandbox or when allowed. */
export function targetRuleOf(
  config: Pick<Config, 'mode' | 'host' | 'trustProxy' | 'publicBaseUrl' | 'webhookAllowPrivate'>,
  lookup: HostLookup = systemLookup,
): TargetRule {
  const allowPrivate =
    config.webhookAllowPrivate || (config.mode === 'sandbox' && listensOnLoopbackOnly(config));
  return { allowPrivate, lookup };
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Addresses that are not on the public internet (IANA special-purpose registries). Two lists: a
 * BlockList holding an IPv4-mapped IPv6 range matches every IPv4 address too.
 */
const NOT_PUBLIC_V4 = new BlockList();
const NOT_PUBLIC_V6 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared (carrier-grade NAT)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  NOT_PUBLIC_V4.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['64:ff9b:1::', 48], // local-use IPv4/IPv6 translation
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments, Teredo
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  NOT_PUBLIC_V6.addSubnet(net, prefix, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address (`isIP` said it is one). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const start = parse(head);
  if (tail === undefined) return start;
  const end = parse(tail);
  return [...start, ...new Array<number>(8 - start.length - end.length).fill(0), ...end];
}

const ipv4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * True for an address on the public internet: not loopback, private, shared, link-local,
 * unique-local, multicast, unspecified, documentation or reserved, in any of the IPv6 forms that
 * carry an IPv4 address (mapped and compatible ones are refused outright; NAT64 and 6to4 ones are
 * judged by the IPv4 address inside).
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !NOT_PUBLIC_V4.check(address, 'ipv4');
  if (family !== 6) return false;
  const g = ipv6Groups(address);
  if (g.length !== 8 || g.some((x) => !Number.isInteger(x) || x < 0 || x > 0xffff)) return false;
  // ::/96 (unspecified, loopback, IPv4-compatible `::7f00:1`), ::ffff:0:0/96 (IPv4-mapped
  // `::ffff:127.0.0.1`) and ::ffff:0:0:0/96 (IPv4-translated): refused whatever IPv4 they carry.
  if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0) {
    if (g[4] === 0 && (g[5] === 0 || g[5] === 0xffff)) return false;
    if (g[4] === 0xffff && g[5] === 0) return false;
  }
  const canonical = g.map((x) => x.toString(16)).join(':');
  if (NOT_PUBLIC_V6.check(canonical, 'ipv6')) return false;
  // NAT64 (64:ff9b::/96): the IPv4 address in the last 32 bits.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    return isPublicAddress(ipv4Of(g[6]!, g[7]!));
  }
  // 6to4 (2002::/16): the IPv4 address in bits 16–48.
  if (g[0] === 0x2002) return isPublicAddress(ipv4Of(g[1]!, g[2]!));
  return true;
}

/** A URL's host as a name or address to resolve: brackets off, lower case, no trailing dots. */
export function normalizedHost(hostname: string): string {
  return hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.+$/, '');
}

export type TargetCheck =
  { ok: true; addresses: LookupAddress[] } | { ok: false; reason: 'private' | 'unresolvable' };

/**
 * Checks where a URL would connect. With private targets allowed nothing is refused (and nothing
 * resolved here: the connection resolves). Otherwise a literal address must be public, a name of
 * the `localhost` family is refused without asking any resolver (RFC 6761; `localhost.` too), and
 * any other name is resolved and refused when any of its addresses is not public.
 */
export async function checkTarget(rule: TargetRule, url: URL): Promise<TargetCheck> {
  if (rule.allowPrivate) return { ok: true, addresses: [] };
  const host = normalizedHost(url.hostname);
  const family = isIP(host);
  if (family !== 0) {
    return isPublicAddress(host) ? { ok: true, addresses: [{ address: host, family }] } : refused('private');
  }
  if (host === '' || host === 'localhost' || host.endsWith('.localhost')) return refused('private');
  let addresses: LookupAddress[];
  try {
    addresses = await rule.lookup(host);
  } catch {
    return refused('unresolvable');
  }
  if (addresses.length === 0) return refused('unresolvable');
  if (!addresses.every((a) => isPublicAddress(a.address))) return refused('private');
  return { ok: true, addresses };
}

const refused = (reason: 'private' | 'unresolvable'): TargetCheck => ({ ok: false, reason });

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A connection's `lookup` answering with the given addresses, whatever name it is asked for. */
export function pinnedLookup(addresses: LookupAddress[]) {
  return (
    _hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: LookupCallback,
  ) => answer(addresses, options, callback);
}

/** A connection's `lookup` through the rule's resolver (private targets allowed: nothing to pin). */
export function resolvingLookup(lookup: HostLookup) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: LookupCallback,
  ) => {
    lookup(hostname).then(
      (addresses) => answer(addresses, options, callback),
      (err: NodeJS.ErrnoException) => callback(err, []),
    );
  };
}

function answer(
  addresses: LookupAddress[],
  options: { all?: boolean; family?: number | string },
  callback: LookupCallback,
): void {
  const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
  const list = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
  if (list.length === 0) {
    callback(Object.assign(new Error('no address of the family asked for'), { code: 'ENOTFOUND' }), []);
    return;
  }
  if (options.all) callback(null, list);
  else callback(null, list[0]!.address, list[0]!.family);
}
