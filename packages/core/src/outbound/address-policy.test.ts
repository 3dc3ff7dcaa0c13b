import { describe, expect, it } from 'vitest';
import { classifyAddress, isAddressAllowed, parseIpAddress, publicOnlyPolicy, type AddressKind } from './address-policy.js';

const cases: Array<[address: string, kind: AddressKind, range?: string]> = [
  // Public.
  ['8.8.8.8', 'public'],
  ['93.184.216.34', 'public'],
  ['2606:4700:4700::1111', 'public'],
  ['::ffff:8.8.8.8', 'public'],
  // Loopback, IPv4 and IPv6, mapped too.
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['::1', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  // Private networks.
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'private', 'carrierGradeNat'],
  ['100.127.255.255', 'private', 'carrierGradeNat'],
  ['fc00::1', 'private', 'uniqueLocal'],
  ['fd12:3456:789a::1', 'private', 'uniqueLocal'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:192.168.0.1', 'private'],
  // Never allowed.
  ['0.0.0.0', 'special', 'unspecified'],
  ['0.1.2.3', 'special', 'unspecified'],
  ['::', 'special', 'unspecified'],
  ['169.254.169.254', 'special', 'linkLocal'],
  ['169.254.0.1', 'special', 'linkLocal'],
  ['::ffff:169.254.169.254', 'special', 'linkLocal'],
  ['fe80::1', 'special', 'linkLocal'],
  ['febf::1', 'special', 'linkLocal'],
  ['224.0.0.1', 'special', 'multicast'],
  ['239.255.255.250', 'special', 'multicast'],
  ['ff02::1', 'special', 'multicast'],
  ['255.255.255.255', 'special', 'broadcast'],
  ['240.0.0.1', 'special', 'reserved'],
  ['192.0.2.1', 'special', 'reserved'],
  ['198.18.0.1', 'special', 'reserved'],
  ['192.0.0.170', 'special', 'reserved'],
  ['2001:db8::1', 'special', 'reserved'],
  ['64:ff9b::a9fe:a9fe', 'special', 'rfc6052'],
  ['2002:7f00:1::', 'special', '6to4'],
  ['2001:0:4136:e378::1', 'special'],
  ['::ffff:0:7f00:1', 'special', 'rfc6145'],
  ['::7f00:1', 'special', 'notGlobalUnicast'],
  ['100::1', 'special'],
  ['fec0::1', 'special'],
  ['not an address', 'special', 'invalid'],
];

describe('classifyAddress', () => {
  it.each(cases)('%s is %s', (address: string, kind: AddressKind, range?: string) => {
    const found = classifyAddress(address);
    expect(found.kind).toBe(kind);
    if (range !== undefined) expect(found.range).toBe(range);
  });

  it('allows only public addresses by default; the flags add loopback and private, never special ones', () => {
    const kinds = (policy: { allowLoopback: boolean; allowPrivate: boolean }) =>
      ['8.8.8.8', '127.0.0.1', '::1', '10.0.0.1', 'fd00::1', '169.254.169.254', '0.0.0.0', '::', 'fe80::1'].filter((a) =>
        isAddressAllowed(classifyAddress(a), policy),
      );
    expect(kinds(publicOnlyPolicy)).toEqual(['8.8.8.8']);
    expect(kinds({ allowLoopback: true, allowPrivate: false })).toEqual(['8.8.8.8', '127.0.0.1', '::1']);
    expect(kinds({ allowLoopback: false, allowPrivate: true })).toEqual(['8.8.8.8', '10.0.0.1', 'fd00::1']);
    expect(kinds({ allowLoopback: true, allowPrivate: true })).toEqual(['8.8.8.8', '127.0.0.1', '::1', '10.0.0.1', 'fd00::1']);
  });
});

describe('parseIpAddress', () => {
  it.each([
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['0', '0.0.0.0'],
    ['0xa9.0xfe.0xa9.0xfe', '169.254.169.254'],
    ['2852039166', '169.254.169.254'],
    ['[::1]', '::1'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
  ])('reads %s as %s', (host, expected) => {
    expect(parseIpAddress(host)?.toString()).toBe(expected);
  });

  it('classifies every spelling of a refused address as refused', () => {
    for (const host of ['2130706433', '0x7f.1', '0177.0.0.1', '0', '2852039166', '0xa9fea9fe', '[::]', '[::ffff:a9fe:a9fe]']) {
      const ip = parseIpAddress(host);
      expect(ip, host).toBeDefined();
      expect(isAddressAllowed(classifyAddress(ip!), publicOnlyPolicy), host).toBe(false);
    }
  });

  it('leaves host names alone', () => {
    for (const host of ['example.com', 'localhost', 'cafe', 'deadbeef', '1.2.3.4.example', 'xn--nxasmq6b']) {
      expect(parseIpAddress(host), host).toBeUndefined();
    }
  });
});
