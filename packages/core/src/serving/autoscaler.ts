import { parseDuration } from '../listing/index.js';
import { defaultAutoscalingPolicy } from '../resources/deployments/deployment-rules.js';
import { isPlainObject } from '../validation/paths.js';
import type { LoadSample } from './serving-load.js';
import type { JsonObject } from '../contracts/json.js';

/** The load metric the autoscaler supports: requests in flight or waiting, per replica. */
export const concurrentRequestsLoadTarget = 'concurrent_requests';

/** A deployment's scaling bounds and policy, in milliseconds. */
export interface AutoscalingSettings {
  readonly minReplicaCount: number;
  readonly maxReplicaCount: number;
  readonly scaleUpWindowMs: number;
  readonly scaleDownWindowMs: number;
  readonly scaleToZeroWindowMs: number;
  /** Concurrent requests one replica should carry (`loadTargets.concurrent_requests`). */
  readonly concurrentRequestsTarget: number;
}

/** What the autoscaler remembers of a deployment between decisions. */
export interface AutoscalerState {
  /** desiredReplicaCount after the previous decision: a different stored value means someone else set it. */
  readonly observedDesired?: number;
  /** Since when (epoch ms) load has continuously asked for more replicas than desired. */
  readonly aboveSinceMs?: number;
  /** Since when load has continuously asked for fewer. */
  readonly belowSinceMs?: number;
  /** Last request, manual scale or first sight of the deployment: the scale-to-zero clock starts here. */
  readonly lastActivityMs?: number;
}

export type AutoscalerReason = 'steady' | 'bounds' | 'cold-start' | 'scale-up' | 'scale-down' | 'scale-to-zero';

export interface AutoscalerDecision {
  readonly desired: number;
  readonly reason: AutoscalerReason;
  readonly state: AutoscalerState;
}

function durationMs(value: unknown, fallback: string): number {
  const seconds = typeof value === 'string' ? parseDuration(value) : undefined;
  return Math.max(0, (seconds ?? parseDuration(fallback) ?? 0) * 1000);
}

/** Reads a Deployment's bounds and autoscaling policy (API defaults for what is missing). */
export function autoscalingSettingsOf(deployment: JsonObject, defaultConcurrentRequestsTarget: number): AutoscalingSettings {
  const policy = isPlainObject(deployment.autoscalingPolicy) ? deployment.autoscalingPolicy : {};
  const targets = isPlainObject(policy.loadTargets) ? policy.loadTargets : {};
  const target = targets[concurrentRequestsLoadTarget];
  const min = typeof deployment.minReplicaCount === 'number' ? deployment.minReplicaCount : 0;
  const max = typeof deployment.maxReplicaCount === 'number' ? deployment.maxReplicaCount : Math.max(min, 1);
  return {
    minReplicaCount: min,
    maxReplicaCount: Math.max(max, min),
    scaleUpWindowMs: durationMs(policy.scaleUpWindow, defaultAutoscalingPolicy.scaleUpWindow),
    scaleDownWindowMs: durationMs(policy.scaleDownWindow, defaultAutoscalingPolicy.scaleDownWindow),
    scaleToZeroWindowMs: durationMs(policy.scaleToZeroWindow, defaultAutoscalingPolicy.scaleToZeroWindow),
    concurrentRequestsTarget: typeof target === 'number' && target > 0 ? target : defaultConcurrentRequestsTarget,
  };
}

const clamp = (value: number, low: number, high: number) => Math.min(Math.max(value, low), high);

/**
 * The autoscaler's decision for one deployment: a pure function of the settings, the stored desired count,
 * the load sample, the time and the remembered state.
 *
 * Rules:
 * - needed = ⌈peak concurrency / concurrentRequestsTarget⌉ within [min, max] (at least 1 while there is load).
 * - Cold start: at 0 replicas, any waiting or in-flight request scales to `needed` at once (no window): a
 *   request is never refused because a deployment scaled to zero.
 * - Up: when needed > desired at every sample for scaleUpWindow, desired = needed.
 * - Down: when needed < desired at every sample for scaleDownWindow, desired = max(needed, min, 1).
 * - To zero: with minReplicaCount 0 and nothing in flight or waiting, desired = 0 once scaleToZeroWindow has
 *   passed since the last request (or since the autoscaler first saw the deployment / the last manual scale).
 * - Manual `:scale`: a stored desired count different from the last decision was set by someone else; it is
 *   kept, and every window restarts from that moment. So a manual count holds until load disagrees with it
 *   for a whole window (up, down or to zero).
 * - Bounds: a desired count outside [min, max] (bounds changed by an update) is clamped at once.
 */
export function decideReplicaCount(
  settings: AutoscalingSettings,
  input: { readonly nowMs: number; readonly desired: number; readonly load: LoadSample },
  state: AutoscalerState = {},
): AutoscalerDecision {
  const { nowMs: now, load } = input;
  const { minReplicaCount: min, maxReplicaCount: max } = settings;
  let aboveSince = state.aboveSinceMs;
  let belowSince = state.belowSinceMs;
  let lastActivity = Math.max(state.lastActivityMs ?? now, load.lastRequestAtMs ?? Number.NEGATIVE_INFINITY);
  const busy = load.inFlight + load.waiting > 0;
  if (busy) lastActivity = now;
  if (state.observedDesired !== undefined && state.observedDesired !== input.desired) {
    aboveSince = undefined;
    belowSince = undefined;
    lastActivity = now;
  }
  const finish = (desired: number, reason: AutoscalerReason, reset = reason !== 'steady'): AutoscalerDecision => ({
    desired,
    reason,
    state: {
      observedDesired: desired,
      ...(reset || aboveSince === undefined ? {} : { aboveSinceMs: aboveSince }),
      ...(reset || belowSince === undefined ? {} : { belowSinceMs: belowSince }),
      lastActivityMs: lastActivity,
    },
  });

  let desired = input.desired;
  const bounded = clamp(desired, min, max);
  const concurrency = Math.max(load.peakConcurrency, load.inFlight + load.waiting);
  const needed = concurrency > 0 ? clamp(Math.ceil(concurrency / settings.concurrentRequestsTarget), Math.max(min, 1), max) : min;
  if (bounded !== desired) return finish(bounded, 'bounds');
  if (desired === 0 && busy) return finish(Math.max(needed, 1), 'cold-start');

  if (needed > desired) {
    belowSince = undefined;
    aboveSince ??= now;
    if (now - aboveSince >= settings.scaleUpWindowMs) return finish(needed, 'scale-up');
  } else {
    aboveSince = undefined;
    const floor = Math.max(needed, min, desired > 0 ? 1 : 0);
    if (floor < desired) {
      belowSince ??= now;
      if (now - belowSince >= settings.scaleDownWindowMs) {
        desired = floor;
        return finish(desired, 'scale-down');
      }
    } else {
      belowSince = undefined;
    }
  }
  if (min === 0 && desired > 0 && !busy && now - lastActivity >= settings.scaleToZeroWindowMs) return finish(0, 'scale-to-zero');
  return finish(desired, 'steady');
}
