import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where an address points, for the egress policy:
 * - `public`: global unicast, the only kind allowed by default;
 * - `loopback`: 127.0.0.0/8, ::1 (and their IPv4-mapped forms), allowed by `allowLoopback`;
 * - `private`: 10/8, 172.16/12, 192.168/16, 100.64/10 (carrier-grade NAT) and fc00::/7 (unique local),
 *   allowed by `allowPrivate`;
 * - `special`: everything else, never allowed: unspecified (0.0.0.0/8, ::), link-local (169.254/16 with
 *   the cloud metadata address 169.254.169.254, fe80::/10), multicast, broadcast, reserved, documentation
 *   and benchmarking ranges, IPv6 outside 2000::/3, and IPv6 forms that embed an IPv4 address a
 *   translator would reach (NAT64 64:ff9b::/96, 6to4, Teredo, IPv4-translated).
 */
export type AddressKind = 'public' | 'loopback' | 'private' | 'special';

export interface AddressClass {
  readonly kind: AddressKind;
  /** ipaddr.js's range name, e.g. `linkLocal`, `uniqueLocal`, `unicast`. */
  readonly range: string;
}

/** Which non-public kinds the gateway may call. Special addresses are never allowed. */
export interface AddressPolicy {
  readonly allowLoopback: boolean;
  readonly allowPrivate: boolean;
}

export const publicOnlyPolicy: AddressPolicy = Object.freeze({ allowLoopback: false, allowPrivate: false });

const ipv4Kinds: Readonly<Record<string, AddressKind>> = { unicast: 'public', loopback: 'loopback', private: 'private', carrierGradeNat: 'private' };
const ipv6Kinds: Readonly<Record<string, AddressKind>> = { unicast: 'public', loopback: 'loopback', uniqueLocal: 'private' };
// 2000::/3: the only IPv6 block IANA allocates for global unicast.
const globalUnicast = ipaddr.parseCIDR('2000::/3');

/**
 * The IP address a host string denotes, or undefined for a host name. Every IPv4 spelling the WHATWG URL
 * parser accepts counts (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`), as does a bracketed IPv6 literal.
 */
export function parseIpAddress(host: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIPv6(bare)) return ipaddr.IPv6.parse(bare);
  if (isIPv4(bare)) return ipaddr.IPv4.parse(bare);
  // Non-canonical IPv4 forms: let the URL parser (the one that will be used to connect) normalize them.
  if (!/^[0-9a-fx.]+$/i.test(bare)) return undefined;
  let normalized: string;
  try {
    normalized = new URL(`http://${bare}/`).hostname;
  } catch {
    return undefined;
  }
  return isIPv4(normalized) ? ipaddr.IPv4.parse(normalized) : undefined;
}

/** Classifies an IP address (see {@link AddressKind}); an unparsable one is `special`. */
export function classifyAddress(address: string | ipaddr.IPv4 | ipaddr.IPv6): AddressClass {
  const ip = typeof address === 'string' ? parseIpAddress(address) : address;
  if (ip === undefined) return { kind: 'special', range: 'invalid' };
  if (ip.kind() === 'ipv4') {
    const range = (ip as ipaddr.IPv4).range();
    return { kind: ipv4Kinds[range] ?? 'special', range };
  }
  const v6 = ip as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return classifyAddress(v6.toIPv4Address());
  const range = v6.range();
  const kind = ipv6Kinds[range] ?? 'special';
  if (kind === 'public' && !v6.match(globalUnicast)) return { kind: 'special', range: 'notGlobalUnicast' };
  return { kind, range };
}

/** Whether the policy lets the gateway connect to this address. */
export function isAddressAllowed(address: AddressClass, policy: AddressPolicy): boolean {
  switch (address.kind) {
    case 'public':
      return true;
    case 'loopback':
      return policy.allowLoopback;
    case 'private':
      return policy.allowPrivate;
    case 'special':
      return false;
  }
}

/** How a refusal names the kind of address, e.g. in "… resolves to a link-local address". */
export function describeAddressClass(address: AddressClass): string {
  switch (address.kind) {
    case 'loopback':
      return 'a loopback address';
    case 'private':
      return 'a private-network address';
    case 'public':
      return 'a public address';
    case 'special':
      return specialRangeNames[address.range] ?? 'a special-purpose address';
  }
}

const specialRangeNames: Readonly<Record<string, string>> = {
  unspecified: 'an unspecified address',
  linkLocal: 'a link-local address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
};
