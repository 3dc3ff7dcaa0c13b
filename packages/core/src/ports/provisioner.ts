import type { RequestContext } from '../contracts/request-context.js';
import type { Precision } from '../contracts/precision.js';
import type { ModelFileSource } from './model-files.js';

/**
 * An accelerator type string (UPPER_SNAKE, e.g. `GPUX_H100_80GB`). The types a
 * gateway accepts are the ones its installed runtime plugins declare.
 */
export type AcceleratorTypeName = string;

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
  /**
   * The base model's uploaded files, when it was uploaded to the gateway: the replica loads its weights from
   * them (and fails, naming the file, when one is missing or does not match its recorded size and SHA-256).
   * Absent: the engine loads `spec.checkpointUri` or the model name itself.
   */
  readonly weights?: ModelFileSource;
}

/** A LoRA add-on to load on a replica. */
export interface AdapterLoad {
  /** The name requests use for it: the add-on model's resource name. */
  readonly name: string;
  /** Its uploaded files; absent for an add-on registered without files (the engine resolves the name itself). */
  readonly source?: ModelFileSource;
}

/**
 * Loads and unloads LoRA add-ons on running replicas (deployments with `enableAddons`), without a restart.
 * The serving layer decides what is loaded where (at most `numPeftDeviceCached` per replica); a provisioner
 * only carries the calls out, through its engine's documented adapter API.
 */
export interface ReplicaAdapters {
  /**
   * Loads an add-on on a ready replica; resolves once requests naming it are served. Loading one already
   * loaded succeeds.
   * @throws GatewayError FAILED_PRECONDITION when a file is missing or does not match what was recorded (the
   *   message names the file), or the engine refuses the adapter; NOT_FOUND for an unknown replica;
   *   UNAVAILABLE when the replica cannot be reached.
   */
  load(ctx: RequestContext, replicaId: string, adapter: AdapterLoad): Promise<void>;
  /** Unloads an add-on; unloading one that is not loaded succeeds. UNAVAILABLE when the replica cannot be reached. */
  unload(ctx: RequestContext, replicaId: string, name: string): Promise<void>;
  /** The add-ons a replica has loaded now (read from its engine). */
  loaded(ctx: RequestContext, replicaId: string): Promise<readonly string[]>;
}


/**
 * Lifecycle phases of a replica. They only move forward along
 * `pending_scheduling → downloading → initializing → ready` (a provisioner may skip phases it cannot observe),
 * and any phase may end in `failed` (including `ready`, when a serving replica dies) or `stopped` (after
 * {@link Provisioner.stopReplica}). `failed` and `stopped` are terminal.
 */
export const replicaPhases = ['pending_scheduling', 'downloading', 'initializing', 'ready', 'failed', 'stopped'] as const;
export type ReplicaPhase = (typeof replicaPhases)[number];

/** Phases after which nothing changes any more. */
export const terminalReplicaPhases: readonly ReplicaPhase[] = ['failed', 'stopped'];

const phaseOrder: Record<ReplicaPhase, number> = {
  pending_scheduling: 0,
  downloading: 1,
  initializing: 2,
  ready: 3,
  failed: 4,
  stopped: 4,
};

/** Whether a replica may move from one phase to another (see {@link replicaPhases}). */
export function isReplicaPhaseTransitionAllowed(from: ReplicaPhase, to: ReplicaPhase): boolean {
  if (terminalReplicaPhases.includes(from)) return false;
  if (terminalReplicaPhases.includes(to)) return true;
  return phaseOrder[to] > phaseOrder[from];
}

/** A point-in-time view of a replica. */
export interface ReplicaStatus {
  readonly replicaId: string;
  readonly deployment: string;
  readonly phase: ReplicaPhase;
  /** Base URL of the replica's OpenAI-compatible server (`{endpoint}/v1/chat/completions`); set once ready. */
  readonly endpoint?: string;
  /** Why the replica is in its phase: the failure, or what it waits for (e.g. `waiting for 4 × GPUX_H100_80GB`). */
  readonly message?: string;
  /** Epoch milliseconds of the last phase change. */
  readonly since: number;
}

/** Emitted on every phase change. */
export interface ReplicaPhaseEvent {
  readonly replicaId: string;
  readonly deployment: string;
  readonly from: ReplicaPhase;
  readonly to: ReplicaPhase;
  readonly status: ReplicaStatus;
}

/** A started (or re-adopted) replica. */
export interface ReplicaHandle {
  readonly replicaId: string;
  readonly deployment: string;
  readonly spec: ReplicaSpec;
  /** The current status. Never throws. */
  status(): ReplicaStatus;
  /**
   * Calls `listener` on every later phase change, in order, until the returned function is called.
   * Listeners run synchronously; one that throws is ignored.
   */
  onPhase(listener: (event: ReplicaPhaseEvent) => void): () => void;
  /**
   * Resolves with the status once the replica is `ready` or terminal (`failed` / `stopped`); resolves at once
   * when it already is.
   * @throws GatewayError DEADLINE_EXCEEDED after `timeoutMs`; CANCELLED when `signal` aborts.
   */
  settled(options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<ReplicaStatus>;
}

/**
 * Starts, stops and lists replicas on some infrastructure (in-process simulation, static servers, Kubernetes).
 * Every method takes the request context first. Calls return promptly: long work (scheduling, downloads,
 * readiness) happens in the background and shows in the handle's phases.
 */
export interface Provisioner {
  /** `simulated`, `static`, `kubernetes` or a third party's name. */
  readonly kind: string;
  /** Present when the provisioner's replicas load LoRA add-ons at run time. */
  readonly adapters?: ReplicaAdapters;
  /**
   * Starts a replica and returns its handle at once (phase `pending_scheduling` or later); the phases advance
   * in the background. Idempotent on `replicaId`: starting an existing, non-terminal replica returns it.
   * Lack of capacity is not an error: the replica stays `pending_scheduling` until capacity frees up.
   * @throws GatewayError INVALID_ARGUMENT for a malformed replica id or spec; FAILED_PRECONDITION when the
   *   provisioner cannot serve the spec at all (e.g. no static server for the model); UNAVAILABLE when the
   *   infrastructure cannot be reached.
   */
  startReplica(ctx: RequestContext, request: StartReplicaRequest): Promise<ReplicaHandle>;
  /**
   * Stops a replica and releases its capacity; its handle's phase becomes `stopped`. Idempotent: stopping an
   * unknown or already stopped replica succeeds.
   * @throws GatewayError UNAVAILABLE when the infrastructure cannot be reached.
   */
  stopReplica(ctx: RequestContext, replicaId: string): Promise<void>;
  /**
   * Lists replicas that are not stopped (including failed ones, until stopped), optionally of one deployment.
   * After a gateway restart this is how the reconciler re-adopts replicas that kept running.
   * @throws GatewayError UNAVAILABLE when the infrastructure cannot be reached.
   */
  listReplicas(ctx: RequestContext, filter?: { readonly deployment?: string }): Promise<readonly ReplicaHandle[]>;
  /**
   * Releases what the provisioner holds in this process (timers, pollers; the simulated provisioner also shuts
   * its engines down). Replicas on external infrastructure keep running. Idempotent.
   */
  close(): Promise<void>;
}
