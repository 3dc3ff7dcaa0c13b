import { invalidArgument } from '../errors/gateway-error.js';
import { classifyAddress, isAddressAllowed, parseIpAddress, type AddressPolicy } from './address-policy.js';
import { addressRefused } from './checking-lookup.js';

const allowedProtocols = new Set(['http:', 'https:']);

/**
 * Parses a URL the gateway is asked to call and checks what can be checked without DNS: the scheme
 * (`http:` or `https:` only), no credentials in it, and, when the host is an IP literal in any spelling
 * (decimal, octal, hex, IPv6, IPv4-mapped), that the policy allows the address. Host names are checked
 * when they are resolved, on connection. The fragment is dropped (it is never sent).
 * @throws GatewayError INVALID_ARGUMENT
 */
export function checkEgressUrl(input: string | URL, policy: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw invalidArgument('outbound request refused: not a valid absolute URL', { reason: 'EGRESS_URL_INVALID' });
  }
  if (!allowedProtocols.has(url.protocol)) {
    throw invalidArgument(`outbound request refused: only http: and https: URLs may be called, not ${url.protocol}`, { reason: 'EGRESS_URL_INVALID' });
  }
  if (url.username !== '' || url.password !== '') {
    throw invalidArgument('outbound request refused: the URL must not contain credentials', { reason: 'EGRESS_URL_INVALID' });
  }
  if (url.hostname === '') throw invalidArgument('outbound request refused: the URL has no host', { reason: 'EGRESS_URL_INVALID' });
  const ip = parseIpAddress(url.hostname);
  if (ip !== undefined) {
    const addressClass = classifyAddress(ip);
    if (!isAddressAllowed(addressClass, policy)) throw addressRefused(url.hostname, addressClass, true);
  }
  url.hash = '';
  return url;
}
