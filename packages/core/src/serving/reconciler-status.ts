import { Code, isGatewayError } from '../errors/index.js';
import { assertTransition } from '../resources/common/state-machine.js';
import type { Deployment, DeploymentState } from '../resources/deployments/deployment-schema.js';
import type { AddonReadiness } from '../resources/deployed-models/deployed-model-service.js';
import { deploymentStateMachine } from '../resources/deployments/deployment-state-machine.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { JsonObject } from '../contracts/json.js';
import { StaleRead, type DeploymentReconcilerDependencies, type Managed } from './reconciler-model.js';

/** A state change to write with the replica counts; `status: null` clears the status. */
export interface StatusChange {
  state?: DeploymentState;
  status?: NonNullable<Deployment['status']> | null;
}

/** The reconciler's status writes, as the steps of one state (deletion, failure) call them. */
export interface StatusSteps {
  /** {@link writeDeploymentStatus}, with the reconciler's answer to its outcome (announce, or redo the pass). */
  write(ctx: RequestContext, m: Managed, expected: DeploymentState, change: StatusChange): Promise<void>;
  /** {@link syncDeployedModelRecords}. */
  syncRecords(ctx: RequestContext, m: Managed, state: string): Promise<void>;
}

/** `replicaCount` and `replicaStats` of the replicas tracked for a deployment (failed and stopped ones left out). */
export function replicaCountsOf(m: Managed): { replicaCount: number; replicaStats: JsonObject } {
  const counts = { pending_scheduling: 0, downloading: 0, initializing: 0, ready: 0 };
  let replicaCount = 0;
  for (const replica of m.replicas.values()) {
    const phase = replica.handle.status().phase;
    if (phase === 'failed' || phase === 'stopped') continue;
    replicaCount += 1;
    counts[phase] += 1;
  }
  return {
    replicaCount,
    replicaStats: {
      pendingSchedulingReplicaCount: counts.pending_scheduling,
      downloadingModelReplicaCount: counts.downloading,
      initializingReplicaCount: counts.initializing,
      readyReplicaCount: counts.ready,
    },
  };
}

/**
 * Writes replica counts (always recomputed) and an optional state change, only when something differs;
 * the stored state must still be `expected` (else {@link StaleRead}). Every state change goes through
 * `assertTransition`. Answers what happened: `gone` when the deployment no longer exists.
 */
export async function writeDeploymentStatus(
  ctx: RequestContext,
  deps: Pick<DeploymentReconcilerDependencies, 'deployments' | 'logger'>,
  m: Managed,
  expected: DeploymentState,
  change: StatusChange,
): Promise<'unchanged' | 'written' | 'state-changed' | 'gone'> {
  const { replicaCount, replicaStats } = replicaCountsOf(m);
  const data = m.data;
  const same =
    data !== undefined &&
    change.state === undefined &&
    change.status === undefined &&
    data.replicaCount === replicaCount &&
    JSON.stringify(data.replicaStats) === JSON.stringify(replicaStats);
  if (same) return 'unchanged';
  try {
    m.data = await deps.deployments.resources.mutate(ctx, m.name, (previous) => {
      if (previous.state !== expected) throw new StaleRead();
      const next: Deployment = { ...previous, replicaCount, replicaStats };
      if (change.state !== undefined && change.state !== expected) {
        assertTransition(deploymentStateMachine, expected, change.state);
        next.state = change.state;
        if (change.state === 'DELETED') next.desiredReplicaCount = 0;
      }
      if (change.status === null) delete next.status;
      else if (change.status !== undefined) next.status = change.status;
      return next;
    });
    if (change.state !== undefined && change.state !== expected) {
      deps.logger.info({ deployment: m.name, from: expected, to: change.state }, 'deployment state changed');
      return 'state-changed';
    }
    return 'written';
  } catch (error) {
    if (isGatewayError(error) && error.code === Code.NOT_FOUND) return 'gone';
    throw error;
  }
}

/**
 * Brings the deployment's deployed-model records in line with its state and its add-ons' readiness (once
 * per state, or when they changed).
 */
export async function syncDeployedModelRecords(
  ctx: RequestContext,
  deps: Pick<DeploymentReconcilerDependencies, 'deployedModels' | 'logger'>,
  m: Managed,
  state: string,
  addons?: ReadonlyMap<string, AddonReadiness>,
): Promise<void> {
  const readiness = addons ? JSON.stringify([...addons]) : undefined;
  if (readiness !== m.addonReadiness) {
    m.addonReadiness = readiness;
    m.recordsDirty = true;
  }
  if (m.syncedState === state && !m.recordsDirty) return;
  m.recordsDirty = false;
  try {
    await deps.deployedModels.syncWithDeployment(ctx, m.name, addons);
    m.syncedState = state;
  } catch (error) {
    m.recordsDirty = true;
    deps.logger.warn({ err: String(error), deployment: m.name }, 'cannot update deployed models');
  }
}
