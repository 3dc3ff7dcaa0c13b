import { failedPrecondition, invalidArgument } from '../../errors/index.js';
import type { JsonObject } from '../../ports/json.js';
import { isPlainObject } from '../../validation/paths.js';

export const defaultAutoscalingPolicy = { scaleUpWindow: '30s', scaleDownWindow: '600s', scaleToZeroWindow: '3600s' } as const;
const minimumScaleToZeroSeconds = 300;

export function durationSeconds(value: string): number {
  return Number(value.slice(0, -1));
}

/** Model kinds a deployment can serve as its base model. Add-ons are deployed onto a deployment instead. */
const deployableKinds = new Set([
  'HUB_BASE_MODEL', 'ENGINE_BASE_MODEL', 'CUSTOM_MODEL', 'EMBEDDING_MODEL', 'AGENT_MODEL', 'LIVE_MERGE', 'SNAPSHOT_MODEL', 'DRAFT_ADDON',
]);

export function assertDeployableBaseModel(model: JsonObject): void {
  if (!deployableKinds.has(String(model.kind))) {
    throw invalidArgument(`baseModel ${String(model.name)} is a ${String(model.kind)}; deploy a base model and add the add-on to it`, { field: 'baseModel' });
  }
  if (model.state !== 'READY') {
    throw failedPrecondition(`baseModel ${String(model.name)} is ${String(model.state)}, not READY`, { field: 'baseModel' });
  }
}

/** Replica bounds, autoscaling windows and placement: defaults and checks (mutates `data`). */
export function applyScalingRules(data: JsonObject, nowMs: number): void {
  const min = typeof data.minReplicaCount === 'number' ? data.minReplicaCount : 0;
  data.minReplicaCount = min;
  if (data.maxReplicaCount === undefined) data.maxReplicaCount = Math.max(min, 1);
  const max = data.maxReplicaCount as number;
  if (max < min) {
    throw invalidArgument(`maxReplicaCount (${max}) must be at least minReplicaCount (${min})`, { field: 'maxReplicaCount' });
  }
  if (max === 0) throw invalidArgument('maxReplicaCount must be at least 1', { field: 'maxReplicaCount' });

  const policy: JsonObject = isPlainObject(data.autoscalingPolicy) ? data.autoscalingPolicy : {};
  for (const [key, value] of Object.entries(defaultAutoscalingPolicy)) if (policy[key] === undefined) policy[key] = value;
  for (const key of ['scaleUpWindow', 'scaleDownWindow', 'scaleToZeroWindow']) {
    if (durationSeconds(String(policy[key])) < 0) throw invalidArgument(`autoscalingPolicy.${key} must not be negative`, { field: `autoscalingPolicy.${key}` });
  }
  if (durationSeconds(String(policy.scaleToZeroWindow)) < minimumScaleToZeroSeconds) {
    throw invalidArgument(`autoscalingPolicy.scaleToZeroWindow must be at least "${minimumScaleToZeroSeconds}s"`, { field: 'autoscalingPolicy.scaleToZeroWindow' });
  }
  data.autoscalingPolicy = policy;

  const placement: JsonObject = isPlainObject(data.placement) ? data.placement : {};
  const set = ['region', 'multiRegion', 'regions'].filter((k) => placement[k] !== undefined);
  if (set.length > 1) throw invalidArgument(`placement takes exactly one of region, multiRegion, regions (got ${set.join(', ')})`, { field: 'placement' });
  if (set.length === 0) placement.multiRegion = 'GLOBAL';
  if (Array.isArray(placement.regions) && placement.regions.length === 0) {
    throw invalidArgument('placement.regions must name at least one region', { field: 'placement.regions' });
  }
  data.placement = placement;
  data.region = typeof placement.region === 'string' ? placement.region : 'REGION_UNSPECIFIED';

  if (typeof data.expireTime === 'string' && Date.parse(data.expireTime) <= nowMs) {
    throw invalidArgument('expireTime must be in the future', { field: 'expireTime' });
  }
}

/** Serving fields that, when changed on a live deployment, need new replicas (READY → UPDATING). */
export const rolloutFields = [
  'acceleratorCount', 'acceleratorType', 'precision', 'enableAddons', 'draftTokenCount', 'draftModel',
  'ngramSpeculationLength', 'numPeftDeviceCached', 'enableMtp', 'placement',
] as const;

/** Fields a deployment takes from its shape when it names one. */
export const shapeFields = [
  'acceleratorCount', 'acceleratorType', 'precision', 'enableAddons', 'draftTokenCount', 'draftModel',
  'ngramSpeculationLength', 'enableSessionAffinity', 'disableDeploymentSizeValidation',
] as const;
