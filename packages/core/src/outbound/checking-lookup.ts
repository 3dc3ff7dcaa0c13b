import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { classifyAddress, describeAddressClass, isAddressAllowed, type AddressClass, type AddressPolicy } from './address-policy.js';
import { errorCode } from '../errors/error-code.js';
import { invalidArgument, unavailable, type GatewayError } from '../errors/gateway-error.js';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/**
 * Resolves a host name to its addresses (all of them). Tests inject one; the default asks the operating
 * system's resolver, as a connection would.
 */
export type EgressResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: EgressResolver = async (hostname) => {
  const addresses = await dnsLookup(hostname, { all: true, order: 'verbatim' });
  return addresses.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/**
 * The refusal of an address the policy does not allow: `host` is what the caller asked for, `literal`
 * whether it was the address itself (else a name that resolves to it).
 */
export function addressRefused(host: string, addressClass: AddressClass, literal: boolean): GatewayError {
  const resolved = literal ? `${host} is` : `${host} resolves to`;
  return invalidArgument(`outbound request refused: ${resolved} ${describeAddressClass(addressClass)}, and only public addresses may be called`, {
    reason: 'EGRESS_ADDRESS_REFUSED',
  });
}

/** Resolver answers that mean the name does not exist (the caller's mistake), not a transient failure. */
const nameDoesNotExist: ReadonlySet<string> = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * Resolves `hostname` and checks every address it resolves to: one address the policy refuses refuses
 * the host (a name that mixes public and internal records is not trusted with either).
 * @throws GatewayError INVALID_ARGUMENT when an address is refused or the name does not exist; UNAVAILABLE when
 *   resolution fails otherwise (e.g. EAI_AGAIN, a resolver that does not answer).
 */
export async function resolveChecked(resolver: EgressResolver, policy: AddressPolicy, hostname: string): Promise<readonly ResolvedAddress[]> {
  let addresses: readonly ResolvedAddress[];
  try {
    addresses = await resolver(hostname);
  } catch (error) {
    const code = errorCode(error);
    if (code !== undefined && nameDoesNotExist.has(code)) {
      throw invalidArgument(`outbound request refused: ${hostname} does not exist`, { reason: 'EGRESS_DNS_FAILED', cause: error });
    }
    throw unavailable(`outbound request failed: ${hostname} could not be resolved`, { reason: 'EGRESS_DNS_FAILED', cause: error });
  }
  if (addresses.length === 0) throw unavailable(`outbound request failed: ${hostname} has no address`, { reason: 'EGRESS_DNS_FAILED' });
  for (const { address } of addresses) {
    const addressClass = classifyAddress(address);
    if (!isAddressAllowed(addressClass, policy)) throw addressRefused(hostname, addressClass, false);
  }
  return addresses;
}

/**
 * A `lookup` for `net.connect`/`tls.connect` (given to the undici Agent's connector) that resolves and
 * checks in one step, so the socket connects to exactly the addresses that were checked: a DNS answer
 * that changes between a check and the connection (rebinding) cannot slip through. Node calls it only for
 * host names; IP literals are checked before the request is dispatched.
 */
export function checkingLookup(resolver: EgressResolver, policy: AddressPolicy): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    resolveChecked(resolver, policy, hostname).then(
      (checked) => {
        const wanted = options.family === 4 || options.family === 6 ? checked.filter((a) => a.family === options.family) : checked;
        const first = wanted[0];
        if (first === undefined) {
          callback(unavailable(`outbound request failed: ${hostname} has no IPv${String(options.family)} address`, { reason: 'EGRESS_DNS_FAILED' }), '');
        } else if (options.all === true) {
          callback(null, wanted.map((a): LookupAddress => ({ address: a.address, family: a.family })));
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}
