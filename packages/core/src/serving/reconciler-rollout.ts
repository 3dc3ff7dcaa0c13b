import type { ModelFileSource } from '../ports/model-files.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { AcceleratorRuntime } from '../ports/accelerator-runtime.js';
import type { ReplicaSpec } from '../ports/provisioner.js';
import type { DeploymentState } from '../resources/deployments/deployment-schema.js';
import { phaseRank, type FailureStatus, type Managed, type TrackedReplica } from './reconciler-model.js';
import type { ReplicaLifecycle } from './reconciler-replicas.js';

/** A ready replica that takes requests (not draining, not being stopped). */
export const isServing = (r: TrackedReplica): boolean => r.handle.status().phase === 'ready' && !r.draining && !r.stopping;

/** Replicas not being stopped, of any generation. */
export const liveReplicas = (m: Managed): TrackedReplica[] => [...m.replicas.values()].filter((r) => !r.stopping);

const currentReplicas = (m: Managed, generation: string) => liveReplicas(m).filter((r) => r.generation === generation && !r.draining);

/** The replica set a deployment should converge on: `desired` replicas of `spec`, named by `generation`. */
export interface RolloutTarget {
  readonly runtime: AcceleratorRuntime;
  readonly spec: ReplicaSpec;
  readonly generation: string;
  readonly desired: number;
  /** The uploaded base model's files, which replicas load. */
  readonly weights?: ModelFileSource;
}

/**
 * One step of scaling and rolling out a deployment's replicas towards `target`:
 * - draining replicas are stopped once idle (or their drain time is up);
 * - missing replicas of the current generation start, unless a failure backoff is running (then a wake is set);
 *   replicas beyond `desired` drain, the least advanced first, then the highest index;
 * - a new generation surges: old replicas that are not ready stop at once, and ready old ones drain as new
 *   ones become ready (old ready kept = desired − new ready).
 * Returns the provisioner's error when it refuses the spec (nothing else is done then).
 */
export async function rollOut(
  ctx: RequestContext,
  replicas: Pick<ReplicaLifecycle, 'drain' | 'startReplicas' | 'wakeAfter'>,
  m: Managed,
  target: RolloutTarget,
): Promise<FailureStatus | undefined> {
  const { runtime, spec, generation, desired, weights } = target;
  await replicas.drain(ctx, m, liveReplicas(m).filter((r) => r.draining));
  const missing = desired - currentReplicas(m, generation).length;
  if (missing > 0) {
    if (Date.now() >= m.nextStartAt) {
      const fatal = await replicas.startReplicas(ctx, m, runtime, spec, generation, missing, weights);
      if (fatal) return fatal;
    } else {
      replicas.wakeAfter(m, m.nextStartAt - Date.now());
    }
  } else if (missing < 0) {
    const excess = currentReplicas(m, generation)
      .sort((a, b) => phaseRank[a.handle.status().phase] - phaseRank[b.handle.status().phase] || b.index - a.index)
      .slice(0, -missing);
    await replicas.drain(ctx, m, excess);
  }

  const old = liveReplicas(m).filter((r) => r.generation !== generation && !r.draining);
  const readyCurrent = currentReplicas(m, generation).filter(isServing).length;
  await replicas.drain(ctx, m, old.filter((r) => !isServing(r)));
  const keepOldReady = Math.max(0, desired - readyCurrent);
  await replicas.drain(ctx, m, old.filter(isServing).slice(keepOldReady));
  return undefined;
}

/**
 * The state a converging deployment moves to: CREATING → READY and UPDATING → READY once at least one replica
 * of the generation serves (none needed at zero), all desired ones have started and no replica of another
 * generation is left (stopping ones included); a READY deployment that finds old replicas moves to UPDATING.
 */
export function stateAfterRollout(m: Managed, generation: string, desired: number, state: DeploymentState): DeploymentState {
  const current = currentReplicas(m, generation);
  const up = current.filter(isServing).length >= Math.min(1, desired) && current.length >= desired;
  const oldLeft = [...m.replicas.values()].some((r) => r.generation !== generation);
  if (state === 'STATE_UNSPECIFIED') return 'CREATING';
  if ((state === 'CREATING' || state === 'UPDATING') && up && !oldLeft) return 'READY';
  if (state === 'READY' && oldLeft) return 'UPDATING';
  return state;
}
