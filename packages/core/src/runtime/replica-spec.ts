import type { ReplicaSpec } from '../ports/provisioner.js';

/** The context window a replica runs with: the deployment's, else the model's, else 8192. */
export function replicaContextLength(spec: ReplicaSpec): number {
  if (spec.maxContextLength !== undefined && spec.maxContextLength > 0) return spec.maxContextLength;
  if (spec.modelContextLength !== undefined && spec.modelContextLength > 0) return spec.modelContextLength;
  return 8192;
}

/** The model id a replica serves. */
export function servedModelId(spec: ReplicaSpec): string {
  return spec.servedModelId ?? spec.baseModel;
}
