import type { Provisioner } from '../ports/provisioner.js';
import { assertReplicaId, type ReplicaTracker } from './replica-tracker.js';

/** What an in-process provisioner keeps of each replica it started: at least its request and tracker. */
export interface TrackedReplicaEntry {
  readonly tracker: ReplicaTracker;
  readonly request: { readonly deployment: string };
}

/**
 * The `stopReplica`, `listReplicas` and `close` of a provisioner that keeps its replicas in a map:
 * listing filters by deployment, closing stops every replica with the provisioner's own `stop`.
 */
export function trackedReplicaMethods(
  replicas: ReadonlyMap<string, TrackedReplicaEntry>,
  stop: (replicaId: string) => Promise<void>,
): Pick<Provisioner, 'stopReplica' | 'listReplicas' | 'close'> {
  return {
    stopReplica: (_ctx, replicaId) => stop(replicaId),
    async listReplicas(_ctx, filter = {}) {
      return [...replicas.values()]
        .filter((r) => filter.deployment === undefined || r.request.deployment === filter.deployment)
        .map((r) => r.tracker);
    },
    async close() {
      await Promise.all([...replicas.keys()].map((id) => stop(id)));
    },
  };
}

/**
 * The start of an in-process provisioner's `startReplica`: checks the id, answers the tracker of a
 * replica already running under it (starting is idempotent), and stops a terminal one so the id can
 * start again. `undefined`: the caller starts the replica.
 */
export async function runningReplica(
  replicas: ReadonlyMap<string, TrackedReplicaEntry>,
  replicaId: string,
  stop: (replicaId: string) => Promise<void>,
): Promise<ReplicaTracker | undefined> {
  assertReplicaId(replicaId);
  const existing = replicas.get(replicaId);
  if (existing && !existing.tracker.terminal) return existing.tracker;
  if (existing) await stop(replicaId);
  return undefined;
}
