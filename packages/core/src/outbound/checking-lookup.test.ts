import { describe, expect, it } from 'vitest';
import type { LookupAddress } from 'node:dns';
import { Code } from '../errors/code.js';
import { isGatewayError } from '../errors/gateway-error.js';
import { publicOnlyPolicy } from './address-policy.js';
import { checkingLookup, resolveChecked, type EgressResolver, type ResolvedAddress } from './checking-lookup.js';
import { gatewayFailure as failure, tableResolver } from './loopback-server-fixture.js';

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });

const records = {
  'public.test': [v4('93.184.216.34'), v6('2606:2800:220:1:248:1893:25c8:1946')],
  'localhost': [v4('127.0.0.1'), v6('::1')],
  'metadata.test': [v4('169.254.169.254')],
  'mixed.test': [v4('93.184.216.34'), v4('10.0.0.7')],
  'mapped.test': [v6('::ffff:127.0.0.1')],
  'internal.test': [v4('10.1.2.3'), v6('fd00::3')],
  'empty.test': [],
  'v4only.test': [v4('93.184.216.34')],
};
const resolver = tableResolver(records);

describe('resolveChecked', () => {
  it('answers every address of a public name', async () => {
    expect(await resolveChecked(resolver, publicOnlyPolicy, 'public.test')).toEqual(records['public.test']);
  });

  it('refuses a name with any refused address, naming the host and the kind, not the address', async () => {
    for (const host of ['localhost', 'metadata.test', 'mixed.test', 'mapped.test', 'internal.test']) {
      const error = await failure(resolveChecked(resolver, publicOnlyPolicy, host));
      expect(error.code, host).toBe(Code.INVALID_ARGUMENT);
      expect(error.reason, host).toBe('EGRESS_ADDRESS_REFUSED');
      expect(error.message, host).toContain(`${host} resolves to`);
    }
    expect((await failure(resolveChecked(resolver, publicOnlyPolicy, 'mixed.test'))).message).not.toContain('10.0.0.7');
  });

  it('allows loopback names only with allowLoopback, private names only with allowPrivate', async () => {
    expect(await resolveChecked(resolver, { allowLoopback: true, allowPrivate: false }, 'localhost')).toHaveLength(2);
    expect(await resolveChecked(resolver, { allowLoopback: true, allowPrivate: false }, 'mapped.test')).toHaveLength(1);
    expect((await failure(resolveChecked(resolver, { allowLoopback: true, allowPrivate: false }, 'internal.test'))).reason).toBe('EGRESS_ADDRESS_REFUSED');
    expect(await resolveChecked(resolver, { allowLoopback: false, allowPrivate: true }, 'internal.test')).toHaveLength(2);
    expect((await failure(resolveChecked(resolver, { allowLoopback: true, allowPrivate: true }, 'metadata.test'))).reason).toBe('EGRESS_ADDRESS_REFUSED');
  });

  it('is UNAVAILABLE when resolution fails for a while or the name has no address', async () => {
    const flaky: EgressResolver = async (hostname) => {
      throw Object.assign(new Error(`getaddrinfo EAI_AGAIN ${hostname}`), { code: 'EAI_AGAIN' });
    };
    for (const [using, host] of [[flaky, 'public.test'], [resolver, 'empty.test']] as const) {
      const error = await failure(resolveChecked(using, publicOnlyPolicy, host));
      expect(error.code).toBe(Code.UNAVAILABLE);
      expect(error.reason).toBe('EGRESS_DNS_FAILED');
    }
  });

  it('is INVALID_ARGUMENT when the name does not exist (the caller gave it)', async () => {
    const error = await failure(resolveChecked(resolver, publicOnlyPolicy, 'nowhere.test'));
    expect(error.code).toBe(Code.INVALID_ARGUMENT);
    expect(error.reason).toBe('EGRESS_DNS_FAILED');
  });
});

describe('checkingLookup', () => {
  type Answer = { error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number | undefined };
  const lookup = (host: string, options: { all?: boolean; family?: number }) =>
    new Promise<Answer>((resolve) => {
      checkingLookup(resolver, publicOnlyPolicy)(host, options, (error, address, family) => resolve({ error, address, family }));
    });

  it('answers in the shape net asks for: all addresses, or the first of a family', async () => {
    expect((await lookup('public.test', { all: true })).address).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ]);
    expect(await lookup('public.test', {})).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    expect(await lookup('public.test', { family: 6 })).toEqual({ error: null, address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 });
  });

  it('fails the connection with the refusal', async () => {
    const { error } = await lookup('mixed.test', { all: true });
    expect(isGatewayError(error) && error.reason).toBe('EGRESS_ADDRESS_REFUSED');
    expect(isGatewayError((await lookup('metadata.test', {})).error)).toBe(true);
  });

  it('fails when the family asked for has no address', async () => {
    const { error } = await lookup('v4only.test', { family: 6 });
    expect(isGatewayError(error) && error.code).toBe(Code.UNAVAILABLE);
    expect(isGatewayError(error) && error.reason).toBe('EGRESS_DNS_FAILED');
  });
});
