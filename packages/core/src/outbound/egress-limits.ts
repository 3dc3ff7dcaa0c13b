import { invalidArgument } from '../errors/gateway-error.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { EgressLimits } from '../ports/egress-http.js';

export type ResolvedEgressLimits = Required<EgressLimits>;

/** Redirects are followed at most this many times, whatever a caller asks. */
export const maxRedirectsCeiling = 5;

/** The client's defaults: enough for a webhook, an image download or a tool call, not for a stream. */
export const defaultEgressLimits: ResolvedEgressLimits = Object.freeze({
  headersTimeoutMs: 30_000,
  bodyIdleTimeoutMs: 30_000,
  totalTimeoutMs: 60_000,
  maxResponseBytes: 10 * 1024 * 1024,
  maxRedirects: maxRedirectsCeiling,
});

const positiveLimits = ['headersTimeoutMs', 'bodyIdleTimeoutMs', 'totalTimeoutMs', 'maxResponseBytes'] as const;

/**
 * `overrides` over `base`, checked: times and sizes are positive numbers (`Infinity` for none), redirects
 * an integer from 0 to 5.
 * @throws GatewayError INVALID_ARGUMENT naming the bad limit
 */
export function resolveEgressLimits(base: ResolvedEgressLimits, overrides: EgressLimits = {}): ResolvedEgressLimits {
  const limits: ResolvedEgressLimits = {
    headersTimeoutMs: overrides.headersTimeoutMs ?? base.headersTimeoutMs,
    bodyIdleTimeoutMs: overrides.bodyIdleTimeoutMs ?? base.bodyIdleTimeoutMs,
    totalTimeoutMs: overrides.totalTimeoutMs ?? base.totalTimeoutMs,
    maxResponseBytes: overrides.maxResponseBytes ?? base.maxResponseBytes,
    maxRedirects: overrides.maxRedirects ?? base.maxRedirects,
  };
  for (const name of positiveLimits) {
    const value = limits[name];
    if (typeof value !== 'number' || Number.isNaN(value) || value <= 0) {
      throw invalidArgument(`egress limit ${name} must be a positive number or Infinity, not ${String(value)}`, { reason: 'EGRESS_LIMIT_INVALID' });
    }
  }
  const { maxRedirects } = limits;
  if (!Number.isInteger(maxRedirects) || maxRedirects < 0 || maxRedirects > maxRedirectsCeiling) {
    throw invalidArgument(`egress limit maxRedirects must be an integer from 0 to ${maxRedirectsCeiling}, not ${String(maxRedirects)}`, {
      reason: 'EGRESS_LIMIT_INVALID',
    });
  }
  return limits;
}

/** The total time an exchange may take under `ctx`: its limit, shortened by the context's deadline. */
export function totalTimeMs(ctx: RequestContext, limits: ResolvedEgressLimits, now: number = Date.now()): number {
  return ctx.deadline === undefined ? limits.totalTimeoutMs : Math.min(limits.totalTimeoutMs, Math.max(ctx.deadline - now, 0));
}

/** undici's spelling of "no timeout". */
export const undiciTimeout = (ms: number): number => (Number.isFinite(ms) ? ms : 0);
