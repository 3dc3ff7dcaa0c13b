import type { AcceleratorTypeName } from './accelerator.js';
import type { Precision } from './precision.js';

/**
 * Everything needed to launch one replica of a deployment: the deployment's (shape-resolved) serving fields.
 * The deployment reconciler fills it from the Deployment resource and its base model.
 */
export interface ReplicaSpec {
  /** Base model resource name, e.g. `accounts/fireworks/models/llama-v3-8b`. */
  readonly baseModel: string;
  /** Model id the engine serves (`/v1/models`, the `model` field of requests). Default: `baseModel`. */
  readonly servedModelId?: string;
  readonly acceleratorType: AcceleratorTypeName;
  /** Accelerators per replica = tensor-parallel size. */
  readonly acceleratorCount: number;
  readonly precision?: Precision;
  /** The base model's parameter count (int64 string), when known. */
  readonly parameterCount?: string;
  /** Context window; 0 or absent means the model default ({@link ReplicaSpec.modelContextLength}). */
  readonly maxContextLength?: number;
  /** The model's own maximum context length. */
  readonly modelContextLength?: number;
  /** Draft model for speculative decoding; empty disables it. */
  readonly draftModel?: string;
  /** Candidates per speculative step. */
  readonly draftTokenCount?: number;
  /** Previous-sequence length used for n-gram speculation (prompt lookup); 0 disables it. */
  readonly ngramSpeculationLength?: number;
  /** LoRA add-ons are served on this deployment. */
  readonly enableAddons?: boolean;
  /** LoRA add-ons kept on the device at once. */
  readonly numPeftDeviceCached?: number;
  /** Checkpoint location the engine loads from, when not derivable from the model name. */
  readonly checkpointUri?: string;
}

/** A request to start one replica. */
export interface StartReplicaRequest {
  /**
   * Caller-chosen id, unique within the provisioner: lowercase letters, digits and hyphens, 1–40 characters.
   * Starting an id that already exists returns the existing replica (start is idempotent).
   */
  readonly replicaId: string;
  /** Deployment resource name, e.g. `accounts/a/deployments/d`. Used to list replicas for re-adoption. */
  readonly deployment: string;
  readonly spec: ReplicaSpec;
}

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
