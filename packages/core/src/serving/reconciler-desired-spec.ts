import type { Storage } from '../ports/storage.js';
import type { ReplicaSpec } from '../ports/provisioner.js';
import type { ModelFileSource } from '../ports/model-files.js';
import type { ModelFileSources } from './model-file-sources.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { JsonObject } from '../contracts/json.js';
import { replicaGeneration, replicaSpecOf } from './replica-naming.js';
import type { Managed } from './reconciler-model.js';

/**
 * The replica spec a deployment wants, its generation (a new generation starts a rollout) and, for a base
 * model uploaded to the gateway, the files its replicas load. Cached on the deployment's entry while the
 * fields it is made of stay the same; the base model is read once per change.
 */
export async function desiredReplicaSpec(
  ctx: RequestContext,
  storage: Storage,
  sources: ModelFileSources,
  m: Managed,
  data: JsonObject,
): Promise<{ spec: ReplicaSpec; generation: string; weights?: ModelFileSource }> {
  const key = JSON.stringify([replicaSpecOf(data), data.placement, data.enableMtp]);
  if (m.spec?.key === key) return m.spec;
  const baseName = String(data.baseModel);
  const base = await storage.resources.get(ctx, baseName);
  const spec = replicaSpecOf(data, base?.data);
  const weights = base ? await sources.sourceOf(ctx, baseName, base.data) : undefined;
  m.spec = { key, spec, generation: replicaGeneration(spec, data), ...(weights ? { weights } : {}) };
  return m.spec;
}
