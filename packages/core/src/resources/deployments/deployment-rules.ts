import { failedPrecondition, invalidArgument } from '../../errors/index.js';
import type { Model } from '../models/model-schema.js';
import type { Deployment } from './deployment-schema.js';

export const defaultAutoscalingPolicy = { scaleUpWindow: '30s', scaleDownWindow: '600s', scaleToZeroWindow: '3600s' } as const;
const minimumScaleToZeroSeconds = 300;
const autoscalingWindows = ['scaleUpWindow', 'scaleDownWindow', 'scaleToZeroWindow'] as const;

export function durationSeconds(value: string): number {
  return Number(value.slice(0, -1));
}

/** Model kinds a deployment can serve as its base model. Add-ons are deployed onto a deployment instead. */
const deployableKinds: ReadonlySet<string> = new Set([
  'HUB_BASE_MODEL', 'ENGINE_BASE_MODEL', 'CUSTOM_MODEL', 'EMBEDDING_MODEL', 'AGENT_MODEL', 'LIVE_MERGE', 'SNAPSHOT_MODEL', 'DRAFT_ADDON',
]);

export function assertDeployableBaseModel(model: Model): void {
  if (model.kind === undefined || !deployableKinds.has(model.kind)) {
    throw invalidArgument(`baseModel ${model.name} is a ${model.kind}; deploy a base model and add the add-on to it`, { field: 'baseModel' });
  }
  if (model.state === 'UPLOADING') {
    throw failedPrecondition(`baseModel ${model.name} is UPLOADING: upload and validate its files (:validateUpload) before deploying it`, {
      field: 'baseModel', reason: 'MODEL_NOT_READY',
    });
  }
  if (model.state !== 'READY') {
    throw failedPrecondition(`baseModel ${model.name} is ${model.state}, not READY`, { field: 'baseModel' });
  }
}

/** A deployment's replica bounds as {@link applyScalingRules} settles them (every stored deployment has both). */
export function replicaBounds(deployment: Pick<Deployment, 'minReplicaCount' | 'maxReplicaCount'>): { min: number; max: number } {
  const min = deployment.minReplicaCount ?? 0;
  return { min, max: deployment.maxReplicaCount ?? Math.max(min, 1) };
}

/** Replica bounds, autoscaling windows and placement: defaults and checks (mutates `data`). Answers the bounds. */
export function applyScalingRules(data: Deployment, nowMs: number): { min: number; max: number } {
  const { min, max } = replicaBounds(data);
  data.minReplicaCount = min;
  data.maxReplicaCount = max;
  if (max < min) {
    throw invalidArgument(`maxReplicaCount (${max}) must be at least minReplicaCount (${min})`, { field: 'maxReplicaCount' });
  }
  if (max === 0) throw invalidArgument('maxReplicaCount must be at least 1', { field: 'maxReplicaCount' });

  const policy = data.autoscalingPolicy ?? {};
  for (const key of autoscalingWindows) policy[key] ??= defaultAutoscalingPolicy[key];
  for (const key of autoscalingWindows) {
    if (durationSeconds(policy[key] ?? '') < 0) throw invalidArgument(`autoscalingPolicy.${key} must not be negative`, { field: `autoscalingPolicy.${key}` });
  }
  if (durationSeconds(policy.scaleToZeroWindow ?? '') < minimumScaleToZeroSeconds) {
    throw invalidArgument(`autoscalingPolicy.scaleToZeroWindow must be at least "${minimumScaleToZeroSeconds}s"`, { field: 'autoscalingPolicy.scaleToZeroWindow' });
  }
  data.autoscalingPolicy = policy;

  const placement = data.placement ?? {};
  const set = (['region', 'multiRegion', 'regions'] as const).filter((k) => placement[k] !== undefined);
  if (set.length > 1) throw invalidArgument(`placement takes exactly one of region, multiRegion, regions (got ${set.join(', ')})`, { field: 'placement' });
  if (set.length === 0) placement.multiRegion = 'GLOBAL';
  if (placement.regions !== undefined && placement.regions.length === 0) {
    throw invalidArgument('placement.regions must name at least one region', { field: 'placement.regions' });
  }
  data.placement = placement;
  data.region = placement.region ?? 'REGION_UNSPECIFIED';

  if (data.expireTime !== undefined && Date.parse(data.expireTime) <= nowMs) {
    throw invalidArgument('expireTime must be in the future', { field: 'expireTime' });
  }
  return { min, max };
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
