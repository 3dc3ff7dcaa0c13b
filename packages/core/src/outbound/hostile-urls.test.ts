import { createServer, type Server } from 'node:http';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestContext } from '../contracts/request-context.js';
import { Code } from '../errors/code.js';
import { GuardedEgressHttp, type EgressHttpOptions } from './egress-client.js';
import type { ResolvedAddress } from './checking-lookup.js';
import { gatewayFailure, startLoopbackServer, tableResolver, type LoopbackServer } from './loopback-server-fixture.js';

/**
 * The hostile-URL corpus: every entry is called through a client that allows neither loopback nor private
 * addresses, while a canary HTTP server listens on 127.0.0.1 at the port every entry names. The canary
 * counts TCP connections; it must see none. A "public internet" is simulated without any network: names
 * resolving to the documentation-free public address 93.184.216.34 are checked as public by the real
 * checking lookup, then connected to a stand-in server on [::1] at the same port (so a leak to [::1]
 * would show up there as a request for a `/leaked` path). The stand-in answers redirects.
 */

const ctx: RequestContext = { requestId: 'hostile-urls' };
const publicAddress = '93.184.216.34';
const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });

/** A client whose checked public answers connect to the stand-in on ::1 instead of the internet. */
class SimulatedInternetEgress extends GuardedEgressHttp {
  protected override connectionLookup(checked: LookupFunction): LookupFunction {
    const toStandIn = (address: string, family: number): LookupAddress =>
      address === publicAddress ? { address: '::1', family: 6 } : { address, family };
    return (hostname, options, callback) =>
      checked(hostname, options, (error, address, family) => {
        if (error) return callback(error, '');
        if (Array.isArray(address)) return callback(null, (address as LookupAddress[]).map((a) => toStandIn(a.address, a.family)));
        const one = toStandIn(address as string, family ?? 4);
        return callback(null, one.address, one.family);
      });
  }
}

let canary: LoopbackServer;
let standIn: Server;
const standInPaths: string[] = [];
let port: number;

/** Binds the stand-in on [::1] at the canary's port (retrying with a new canary if that port is taken there). */
async function startServers(): Promise<void> {
  for (let tries = 0; tries < 20; tries++) {
    canary = await startLoopbackServer((_request, response) => response.end('canary reached'));
    port = canary.port;
    standIn = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://stand-in');
      standInPaths.push(url.pathname);
      // Every connection is new, so a redirect to the same name resolves (and is checked) again.
      response.setHeader('connection', 'close');
      const to = url.searchParams.get('to');
      if (url.pathname.startsWith('/redirect') && to !== null) {
        response.statusCode = Number(url.searchParams.get('status') ?? 302);
        response.setHeader('location', to);
      }
      response.end('public');
    });
    const bound = await new Promise<boolean>((resolve) => {
      standIn.once('error', () => resolve(false));
      standIn.listen(port, '::1', () => resolve(true));
    });
    if (bound) return;
    await canary.close();
  }
  throw new Error('no port free on both 127.0.0.1 and ::1');
}

let rebindCalls = 0;
const resolver = tableResolver({
  'public.test': [v4(publicAddress)],
  'localhost': [v4('127.0.0.1'), v6('::1')],
  'localhost.': [v4('127.0.0.1'), v6('::1')],
  'loopback.test': [v4('127.0.0.1')],
  'loopback-alias.test': [v4('127.53.0.1')],
  'mapped.test': [v6('::ffff:127.0.0.1')],
  'mapped-hex.test': [v6('::ffff:7f00:1')],
  'v6-loopback.test': [v6('::1')],
  'nat64.test': [v6('64:ff9b::7f00:1')],
  'sixtofour.test': [v6('2002:7f00:1::1')],
  'unspecified.test': [v4('0.0.0.0')],
  'unspecified6.test': [v6('::')],
  'private.test': [v4('10.0.0.1')],
  'cgnat.test': [v4('100.64.0.1')],
  'ula.test': [v6('fd00::1')],
  'link-local.test': [v4('169.254.169.254')],
  'link-local6.test': [v6('fe80::1')],
  'multicast.test': [v4('224.0.0.1')],
  // A name with one public and one loopback record is trusted with neither.
  'mixed.test': [v4(publicAddress), v4('127.0.0.1')],
  // Public at first, loopback from the second resolution on: a DNS rebinding.
  'rebind.test': () => (rebindCalls++ === 0 ? [v4(publicAddress)] : [v4('127.0.0.1')]),
});

function strictClient(options: EgressHttpOptions = {}): GuardedEgressHttp {
  return new SimulatedInternetEgress({ allowLoopback: false, allowPrivate: false, resolver, connectTimeoutMs: 2_000, ...options });
}

const at = (host: string, path = '/leaked') => `http://${host}:${String(port)}${path}`;

/** Literal, encoded and mapped spellings of addresses that must never be called. */
const literalCorpus = (): string[] => [
  // IPv4 loopback in every spelling the URL parser accepts.
  at('127.0.0.1'), at('127.1'), at('127.0.1'), at('2130706433'), at('0x7f000001'), at('0x7f.0x0.0x0.0x1'), at('0177.0.0.1'),
  at('0177.0000.0000.0001'), at('017700000001'), at('127.0.0.1.'), at('127.255.255.254'), at('%31%32%37.0.0.1'), at('127。0。0。1'),
  at('0x7F.1'), `https://127.0.0.1:${String(port)}/leaked`,
  // IPv6 loopback and the IPv6 forms that carry an IPv4 address.
  at('[::1]'), at('[0:0:0:0:0:0:0:1]'), at('[::ffff:127.0.0.1]'), at('[::ffff:7f00:1]'), at('[0:0:0:0:0:ffff:127.0.0.1]'),
  at('[::127.0.0.1]'), at('[::ffff:0:127.0.0.1]'), at('[64:ff9b::127.0.0.1]'), at('[64:ff9b::7f00:1]'), at('[64:ff9b:1::7f00:1]'),
  at('[2002:7f00:1::]'), at('[2001:0:4136:e378:8000:63bf:80ff:fffe]'),
  // Unspecified (Linux connects 0.0.0.0 to the local host).
  at('0.0.0.0'), at('0'), at('0x0'), at('[::]'), at('[::ffff:0.0.0.0]'),
  // Private, carrier-grade NAT, unique-local, link-local (cloud metadata), multicast, broadcast.
  at('10.0.0.1'), at('172.16.0.1'), at('192.168.0.1'), at('100.64.0.1'), at('100.127.255.254'), at('[fc00::1]'), at('[fd00::1]'),
  at('169.254.169.254'), at('[::ffff:169.254.169.254]'), at('[fe80::1]'), at('224.0.0.1'), at('[ff02::1]'), at('255.255.255.255'),
  at('[::ffff:10.0.0.1]'), at('[::ffff:100.64.0.1]'),
  // Schemes other than http and https, and credentials.
  `ftp://127.0.0.1:${String(port)}/leaked`, 'file:///etc/passwd', `gopher://127.0.0.1:${String(port)}/_leaked`, `ws://127.0.0.1:${String(port)}/leaked`,
  `http://user:pass@public.test:${String(port)}/leaked`, `javascript:fetch('${at('127.0.0.1')}')`,
  // Credentials that spell the canary (the host is public.test), and an IPv6 zone id.
  `http://127.0.0.1:${String(port)}@public.test:${String(port)}/leaked`, at('[::1%25lo]'),
];

/** Names whose (injected) DNS answers are not public. */
const nameCorpus = (): string[] =>
  [
    'localhost', 'LOCALHOST', 'localhost.', 'loopback.test', 'loopback-alias.test', 'mapped.test', 'mapped-hex.test', 'v6-loopback.test',
    'nat64.test', 'sixtofour.test', 'unspecified.test', 'unspecified6.test', 'private.test', 'cgnat.test', 'ula.test', 'link-local.test',
    'link-local6.test', 'multicast.test', 'mixed.test',
    // Circled letters: the URL parser's IDNA mapping makes them `localhost`.
    'ⓛⓞⓒⓐⓛⓗⓞⓢⓣ',
  ].map((name) => at(name));

/** Public answers that redirect to what must never be called (each hop is checked). */
const redirectCorpus = (): string[] => {
  const targets = [
    at('127.0.0.1'), at('2130706433'), at('[::ffff:127.0.0.1]'), at('0.0.0.0'), at('[::]'), at('localhost'), at('mapped.test'),
    `//127.0.0.1:${String(port)}/leaked`, at('169.254.169.254'), `ftp://127.0.0.1:${String(port)}/leaked`,
  ];
  const statuses = [301, 302, 303, 307, 308];
  const direct = targets.map((to, i) => at('public.test', `/redirect?status=${String(statuses[i % statuses.length])}&to=${encodeURIComponent(to)}`));
  // Two hops: public → public → loopback.
  const second = at('public.test', `/redirect-again?to=${encodeURIComponent(at('127.0.0.1'))}`);
  return [...direct, at('public.test', `/redirect?to=${encodeURIComponent(second.replace('/redirect-again', '/redirect'))}`)];
};

beforeAll(startServers);
afterAll(async () => {
  await canary.close();
  standIn.closeAllConnections();
  await new Promise<void>((resolve) => standIn.close(() => resolve()));
});

describe('the hostile-URL corpus (loopback and private not allowed)', () => {
  it('has at least 40 entries, and the simulated internet works (a public name is reached)', async () => {
    expect([literalCorpus().length, nameCorpus().length, redirectCorpus().length]).toEqual([55, 20, 11]);
    const egress = strictClient();
    try {
      const answer = await egress.request(ctx, at('public.test', '/hello'));
      expect([answer.status, answer.text()]).toEqual([200, 'public']);
      expect(standInPaths).toContain('/hello');
    } finally {
      await egress.close(0);
    }
  });

  it('refuses every literal, encoded and mapped form without a connection to the canary', async () => {
    const egress = strictClient();
    try {
      for (const url of literalCorpus()) {
        const error = await gatewayFailure(egress.request(ctx, url, { method: 'POST', body: '{}' }));
        expect(error.code, url).toBe(Code.INVALID_ARGUMENT);
        expect(error.reason, url).toMatch(/^EGRESS_(ADDRESS_REFUSED|URL_INVALID)$/);
      }
    } finally {
      await egress.close(0);
    }
    expect(canary.connections()).toBe(0);
  });

  it('refuses names whose answers are not public, through request and fetch', async () => {
    const egress = strictClient();
    try {
      const fetchThrough = egress.createFetch(ctx);
      for (const url of nameCorpus()) {
        for (const attempt of [() => egress.request(ctx, url), () => fetchThrough(url, { method: 'POST', body: 'x' })]) {
          const error = await gatewayFailure(attempt());
          expect(error.code, url).toBe(Code.INVALID_ARGUMENT);
          expect(error.reason, url).toBe('EGRESS_ADDRESS_REFUSED');
        }
      }
    } finally {
      await egress.close(0);
    }
    expect(canary.connections()).toBe(0);
  });

  it('refuses every redirect hop to a forbidden target, by status and by spelling', async () => {
    const egress = strictClient();
    const before = standInPaths.length;
    try {
      for (const url of redirectCorpus()) {
        const error = await gatewayFailure(egress.request(ctx, url, { method: 'POST', body: '{}' }));
        expect(error.code, url).toBe(Code.INVALID_ARGUMENT);
        expect(error.reason, url).toMatch(/^EGRESS_(ADDRESS_REFUSED|URL_INVALID)$/);
      }
    } finally {
      await egress.close(0);
    }
    const seen = standInPaths.slice(before);
    // Each redirect was served by the stand-in (the two-hop entry twice), and nothing reached a `/leaked` path.
    expect(seen.filter((p) => p.startsWith('/redirect'))).toHaveLength(redirectCorpus().length + 1);
    expect(seen.filter((p) => p === '/leaked')).toEqual([]);
    expect(canary.connections()).toBe(0);
  });

  it('checks every resolution: a name that turns to loopback between connections (or between redirect hops) is refused', async () => {
    rebindCalls = 0;
    const egress = strictClient();
    try {
      // First resolution: public (the stand-in answers); the redirect to the same name opens a new
      // connection, whose resolution now says 127.0.0.1.
      const error = await gatewayFailure(egress.request(ctx, at('rebind.test', `/redirect?to=${encodeURIComponent(at('rebind.test'))}`)));
      expect(error.reason).toBe('EGRESS_ADDRESS_REFUSED');
      expect(error.message).toContain('rebind.test resolves to a loopback address');
      // And a later request to it, on a new connection, is refused the same way.
      expect((await gatewayFailure(egress.request(ctx, at('rebind.test', '/again')))).reason).toBe('EGRESS_ADDRESS_REFUSED');
    } finally {
      await egress.close(0);
    }
    expect(resolver.asked.filter((name) => name === 'rebind.test')).toHaveLength(3);
    expect(standInPaths).not.toContain('/leaked');
    expect(canary.connections()).toBe(0);
  });
});
