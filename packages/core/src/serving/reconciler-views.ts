import type { DeploymentState } from '../resources/deployments/deployment-schema.js';
import { servedModelId } from '../runtime/replica-spec.js';
import type { DeploymentView, Managed, ServingReplica, TrackedReplicaInfo } from './reconciler-model.js';

/** The deployment as routing sees it; undefined before the reconciler has read it. */
export function deploymentView(m: Managed | undefined): DeploymentView | undefined {
  if (!m?.data) return undefined;
  const ready: ServingReplica[] = [];
  for (const replica of m.replicas.values()) {
    const status = replica.handle.status();
    if (status.phase !== 'ready' || replica.draining || replica.stopping || !status.endpoint) continue;
    ready.push({ replicaId: replica.handle.replicaId, endpoint: status.endpoint, servedModelId: servedModelId(replica.handle.spec) });
  }
  return { state: m.data.state as DeploymentState, enableSessionAffinity: m.data.enableSessionAffinity === true, ready };
}

/** The replicas tracked for a deployment (for tests and diagnostics). */
export function trackedReplicas(m: Managed | undefined): TrackedReplicaInfo[] {
  if (!m) return [];
  return [...m.replicas.values()].map((r) => ({
    replicaId: r.handle.replicaId,
    generation: r.generation,
    index: r.index,
    phase: r.handle.status().phase,
    draining: r.draining,
  }));
}
