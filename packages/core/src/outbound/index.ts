/**
 * The guarded outbound HTTP client: every URL a user supplies (webhooks, image URLs, MCP servers) is
 * called through it. See `EgressHttp` in ports and `egressHttpToken`. Exported: the client, its options
 * and policy, the resolver type (to inject one) and the URL check (to refuse a URL when it is given,
 * before anything is called); the rest of this folder is internal.
 */
export { createEgressHttp, GuardedEgressHttp, type EgressHttpOptions } from './egress-client.js';
export { publicOnlyPolicy, type AddressPolicy, type AddressClass, type AddressKind } from './address-policy.js';
export type { EgressResolver, ResolvedAddress } from './checking-lookup.js';
export { checkEgressUrl } from './egress-url.js';
export { defaultEgressLimits, type ResolvedEgressLimits } from './egress-limits.js';
