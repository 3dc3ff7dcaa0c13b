/**
 * The guarded outbound HTTP client: every URL a user supplies (webhooks, image URLs, MCP servers) is
 * called through it. See `EgressHttp` in ports and `egressHttpToken`.
 */
export * from './address-policy.js';
export * from './checking-lookup.js';
export * from './egress-url.js';
export * from './egress-limits.js';
export * from './egress-client.js';
