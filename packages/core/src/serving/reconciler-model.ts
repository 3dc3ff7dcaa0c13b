import { Code } from '../errors/index.js';
import type { Clock } from '../ports/clock.js';
import type { Telemetry } from '../ports/telemetry.js';
import type { GatewayLogger } from '../ports/logger.js';
import type { Storage } from '../ports/storage.js';
import type { DeployedModelService } from '../resources/deployed-models/deployed-model-service.js';
import type { DeploymentState } from '../resources/deployments/deployment-schema.js';
import type { DeploymentService } from '../resources/deployments/deployment-service.js';
import type { AutoscalerState } from './autoscaler.js';
import type { ResolvedServingOptions } from './serving-options.js';
import type { ServingLoad } from './serving-load.js';
import type { JsonObject } from '../contracts/json.js';
import type { AcceleratorRuntime } from '../ports/accelerator-runtime.js';
import type { Provisioner, ReplicaHandle, ReplicaPhase, ReplicaSpec } from '../ports/provisioner.js';
import type { ModelFileSources } from './model-file-sources.js';
import type { ModelFileSource } from '../ports/model-files.js';

/*
 * The deployment reconciler's model: what it tracks per deployment and replica, what it shows routing,
 * and its dependencies. The reconciler (deployment-reconciler.ts: wiring, the pass and converge) calls on
 * one module per concern beside it: reconciler-passes.ts (running passes), reconciler-registry.ts (managed
 * deployments, their saved index), reconciler-replicas.ts (start, stop, drain, reap), reconciler-rollout.ts
 * (scaling and generations), reconciler-failure.ts, reconciler-deletion.ts (deletion, re-adoption),
 * reconciler-status.ts, reconciler-autoscaling.ts, reconciler-desired-spec.ts, reconciler-views.ts.
 */

/** Key-value entry listing the deployments the reconciler manages, so a restart finds them again. */
export const servingIndexKey = 'berth:serving:deployments';

/** A ready replica that may take requests. */
export interface ServingReplica {
  readonly replicaId: string;
  readonly endpoint: string;
  readonly servedModelId: string;
}

/** What request routing needs to know of a deployment, as the reconciler last saw it. */
export interface DeploymentView {
  readonly state: DeploymentState;
  readonly enableSessionAffinity: boolean;
  /** Ready replicas that take requests (draining ones excluded), of any generation. */
  readonly ready: readonly ServingReplica[];
}

/** One replica as the reconciler tracks it (for tests and diagnostics). */
export interface TrackedReplicaInfo {
  readonly replicaId: string;
  readonly generation: string;
  readonly index: number;
  readonly phase: ReplicaPhase;
  readonly draining: boolean;
}

export interface DeploymentReconcilerDependencies {
  readonly runtimes: readonly AcceleratorRuntime[];
  readonly deployments: DeploymentService;
  readonly deployedModels: DeployedModelService;
  readonly storage: Storage;
  readonly clock: Clock;
  readonly logger: GatewayLogger;
  readonly load: ServingLoad;
  readonly options: ResolvedServingOptions;
  /** Where replicas find uploaded model files. Default: no model has any. */
  readonly modelFiles?: ModelFileSources;
  /** Hears the autoscaler's decisions. Default: nothing does. */
  readonly telemetry?: Telemetry;
}

export interface TrackedReplica {
  readonly handle: ReplicaHandle;
  readonly provisioner: Provisioner;
  readonly generation: string;
  readonly index: number;
  unsubscribe: () => void;
  draining: boolean;
  drainDeadline: number;
  /** Stop requested by the reconciler: its end is not a failure. */
  stopping: boolean;
}

export interface Managed {
  readonly name: string;
  readonly replicas: Map<string, TrackedReplica>;
  /** Replica failures since a replica was last ready. */
  failures: number;
  lastFailure: string | undefined;
  /** Earliest time (Date.now) a replacement may start. */
  nextStartAt: number;
  retryTimer: ReturnType<typeof setTimeout> | undefined;
  autoscaler: AutoscalerState;
  /** A FAILED deployment was updated or scaled: try again. */
  retryRequested: boolean;
  /** Deployment state the deployed-model records were last brought in line with. */
  syncedState: string | undefined;
  recordsDirty: boolean;
  /** The add-on readiness the records were last brought in line with (JSON), to notice a change. */
  addonReadiness: string | undefined;
  data: JsonObject | undefined;
  spec: { readonly key: string; readonly spec: ReplicaSpec; readonly generation: string; readonly weights?: ModelFileSource } | undefined;
}

/** A deployment's entry before the reconciler has seen anything of it. */
export function newManaged(name: string): Managed {
  return {
    name,
    replicas: new Map(),
    failures: 0,
    lastFailure: undefined,
    nextStartAt: 0,
    retryTimer: undefined,
    autoscaler: {},
    retryRequested: false,
    syncedState: undefined,
    recordsDirty: false,
    addonReadiness: undefined,
    data: undefined,
    spec: undefined,
  };
}

/** Thrown inside a mutation when the stored deployment moved on since it was read; the pass is redone. */
export class StaleRead extends Error {}

export const phaseRank: Record<ReplicaPhase, number> = { pending_scheduling: 0, downloading: 1, initializing: 2, ready: 3, failed: -1, stopped: -1 };

/** Why a deployment fails: the `status` a FAILED deployment is written with. */
export interface FailureStatus {
  readonly code: Code;
  readonly message: string;
}

export const isFatalStartError = (code: Code) => code === Code.INVALID_ARGUMENT || code === Code.FAILED_PRECONDITION;

