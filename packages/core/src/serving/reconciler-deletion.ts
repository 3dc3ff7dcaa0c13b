import type { RequestContext } from '../contracts/request-context.js';
import type { Provisioner, ReplicaHandle } from '../ports/provisioner.js';
import { parseReplicaId } from './replica-naming.js';
import type { DeploymentReconcilerDependencies, Managed } from './reconciler-model.js';
import type { ReplicaLifecycle } from './reconciler-replicas.js';
import type { StatusSteps } from './reconciler-status.js';

/*
 * The end of a deployment, and the replicas a reconciler finds when it starts:
 * - a DELETING deployment's replicas drain and stop, then DELETING → DELETED and the reconciler forgets it;
 * - a deployment that is gone (DELETED, or no longer stored) has its replicas stopped at once;
 * - either way its deployed-model records follow its state;
 * - on start, replicas the provisioners still run are re-adopted (their ids carry generation and index), and
 *   those of deployments that no longer exist are stopped.
 */

/** What finishing a deployment needs of the reconciler. */
export interface DeletionSteps extends StatusSteps {
  readonly replicas: Pick<ReplicaLifecycle, 'stopAll' | 'drain'>;
  /** Stops managing the deployment. */
  forget(m: Managed): void;
}

/** A deployment that is gone (`state` DELETED, or ABSENT when no longer stored): stops its replicas, forgets it once none is left. */
export async function releaseGoneDeployment(ctx: RequestContext, steps: DeletionSteps, m: Managed, state: string): Promise<void> {
  await steps.replicas.stopAll(ctx, m);
  await steps.syncRecords(ctx, m, state);
  if (m.replicas.size === 0) steps.forget(m);
}

/** A DELETING deployment: drains its replicas; once none is left, DELETING → DELETED and it is forgotten. */
export async function finalizeDeletion(ctx: RequestContext, steps: DeletionSteps, m: Managed): Promise<void> {
  await steps.syncRecords(ctx, m, 'DELETING');
  await steps.replicas.drain(ctx, m, [...m.replicas.values()]);
  if (m.replicas.size === 0) {
    await steps.write(ctx, m, 'DELETING', { state: 'DELETED' });
    await steps.syncRecords(ctx, m, 'DELETED');
    steps.forget(m);
  } else {
    await steps.write(ctx, m, 'DELETING', {});
  }
}

/** Called for each replica worth re-adopting, with the generation and index its id carries. */
export type AdoptReplica = (handle: ReplicaHandle, provisioner: Provisioner, named: { generation: string; index: number }) => void;

/**
 * Goes through the replicas every installed provisioner still runs: those of a deployment that is DELETED or
 * no longer stored are stopped, those this gateway did not name are left alone, the others go to `adopt`.
 * A provisioner that cannot list its replicas is skipped (logged).
 */
export async function adoptRunningReplicas(
  ctx: RequestContext,
  deps: Pick<DeploymentReconcilerDependencies, 'runtimes' | 'storage' | 'logger'>,
  adopt: AdoptReplica,
): Promise<void> {
  for (const provisioner of new Set(deps.runtimes.map((r) => r.provisioner))) {
    let handles: readonly ReplicaHandle[];
    try {
      handles = await provisioner.listReplicas(ctx);
    } catch (error) {
      deps.logger.warn({ err: String(error), provisioner: provisioner.kind }, 'cannot list replicas to re-adopt');
      continue;
    }
    for (const handle of handles) await adoptReplica(ctx, deps, provisioner, handle, adopt);
  }
}

async function adoptReplica(
  ctx: RequestContext,
  deps: Pick<DeploymentReconcilerDependencies, 'storage' | 'logger'>,
  provisioner: Provisioner,
  handle: ReplicaHandle,
  adopt: AdoptReplica,
): Promise<void> {
  const stored = await deps.storage.resources.get(ctx, handle.deployment).catch(() => undefined);
  const parsed = parseReplicaId(handle.replicaId, handle.deployment);
  if (!stored || stored.data.state === 'DELETED') {
    deps.logger.info({ replica: handle.replicaId, deployment: handle.deployment }, 'stopping an orphaned replica');
    await provisioner.stopReplica(ctx, handle.replicaId).catch((error: unknown) => {
      deps.logger.warn({ err: String(error), replica: handle.replicaId }, 'cannot stop an orphaned replica');
    });
    return;
  }
  if (!parsed) {
    deps.logger.warn({ replica: handle.replicaId, deployment: handle.deployment }, 'ignoring a replica this gateway did not name');
    return;
  }
  adopt(handle, provisioner, parsed);
}
