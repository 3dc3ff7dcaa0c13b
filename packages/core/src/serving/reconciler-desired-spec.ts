import type { Storage } from '../ports/storage.js';
import type { ReplicaSpec } from '../ports/provisioner.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { JsonObject } from '../contracts/json.js';
import { replicaGeneration, replicaSpecOf } from './replica-naming.js';
import type { Managed } from './reconciler-model.js';

/**
 * The replica spec a deployment wants and its generation (a new generation starts a rollout). Cached on
 * the deployment's entry while the fields it is made of stay the same; the base model is read once per change.
 */
export async function desiredReplicaSpec(ctx: RequestContext, storage: Storage, m: Managed, data: JsonObject): Promise<{ spec: ReplicaSpec; generation: string }> {
  const key = JSON.stringify([replicaSpecOf(data), data.placement, data.enableMtp]);
  if (m.spec?.key === key) return m.spec;
  const base = await storage.resources.get(ctx, String(data.baseModel));
  const spec = replicaSpecOf(data, base?.data);
  m.spec = { key, spec, generation: replicaGeneration(spec, data) };
  return m.spec;
}
