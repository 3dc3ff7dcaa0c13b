import type { Provisioner } from '../ports/provisioner.js';
import type { ReplicaTracker } from './replica-tracker.js';

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
