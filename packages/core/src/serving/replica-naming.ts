import { createHash } from 'node:crypto';
import { parseResourceName } from '../names/resource-name.js';
import type { JsonObject } from '../contracts/json.js';
import type { AcceleratorTypeName } from '../ports/accelerator-runtime.js';
import type { Precision } from '../contracts/precision.js';
import type { ReplicaSpec } from '../ports/provisioner.js';

/** Longest replica id a provisioner accepts. */
export const maxReplicaIdLength = 40;

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 6);
}

/** Canonical JSON (sorted keys) so equal specs hash equally. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The replica spec a deployment's replicas run with: its serving fields plus what the base model tells
 * (parameter count, context length). `baseModel` is the base model's record when it still exists.
 */
export function replicaSpecOf(deployment: JsonObject, baseModel?: JsonObject): ReplicaSpec {
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const details = baseModel && typeof baseModel.baseModelDetails === 'object' ? (baseModel.baseModelDetails as JsonObject) : {};
  const spec: { -readonly [K in keyof ReplicaSpec]: ReplicaSpec[K] } = {
    baseModel: String(deployment.baseModel),
    acceleratorType: String(deployment.acceleratorType) as AcceleratorTypeName,
    acceleratorCount: num(deployment.acceleratorCount) ?? 1,
  };
  const precision = str(deployment.precision);
  if (precision && precision !== 'PRECISION_UNSPECIFIED') spec.precision = precision as Precision;
  const parameterCount = str(details.parameterCount);
  if (parameterCount) spec.parameterCount = parameterCount;
  const maxContextLength = num(deployment.maxContextLength);
  if (maxContextLength) spec.maxContextLength = maxContextLength;
  const modelContextLength = num(baseModel?.contextLength);
  if (modelContextLength) spec.modelContextLength = modelContextLength;
  const draftModel = str(deployment.draftModel);
  if (draftModel) {
    spec.draftModel = draftModel;
    const draftTokenCount = num(deployment.draftTokenCount);
    if (draftTokenCount) spec.draftTokenCount = draftTokenCount;
  }
  const ngram = num(deployment.ngramSpeculationLength);
  if (ngram) spec.ngramSpeculationLength = ngram;
  if (deployment.enableAddons === true) spec.enableAddons = true;
  const cached = num(deployment.numPeftDeviceCached);
  if (cached) spec.numPeftDeviceCached = cached;
  return spec;
}

/**
 * The generation of a deployment's replicas: 6 hex digits hashing the replica spec plus the rollout fields
 * the spec does not carry (placement, enableMtp). A change means replicas must be replaced.
 */
export function replicaGeneration(spec: ReplicaSpec, deployment: JsonObject): string {
  return shortHash(canonical({ spec, placement: deployment.placement, enableMtp: deployment.enableMtp === true }));
}

/**
 * The id of replica `index` of a deployment's generation: `{id prefix}-{name hash}-{generation}-{index}`, at
 * most 40 lowercase letters, digits and hyphens. The name hash keeps ids of same-named deployments in
 * different accounts apart; the prefix keeps them readable.
 */
export function replicaIdFor(deploymentName: string, generation: string, index: number): string {
  const { id } = parseResourceName(deploymentName, 'deployments');
  const suffix = `-${shortHash(deploymentName)}-${generation}-${index}`;
  const prefix = id.slice(0, Math.max(1, maxReplicaIdLength - suffix.length)).replace(/-+$/, '');
  return `${prefix}${suffix}`;
}

/** Generation and index of a replica id made by {@link replicaIdFor} for this deployment; undefined otherwise. */
export function parseReplicaId(replicaId: string, deploymentName: string): { generation: string; index: number } | undefined {
  const match = /-([0-9a-f]{6})-([0-9a-f]{6})-(\d{1,9})$/.exec(replicaId);
  if (!match || match[1] !== shortHash(deploymentName)) return undefined;
  return { generation: match[2]!, index: Number(match[3]) };
}
