import type { RequestContext } from '../../kernel/request-context.js';
import type { ResourceEnvironment } from '../common/resource-environment.js';
import { listModelFiles } from './model-files.js';
import type { Model } from './model-schema.js';

/**
 * Whether a model being created is *created for upload*, and so starts UPLOADING rather than READY
 * (docs/model-files.md, "Which models start UPLOADING"). Berth also registers models whose weights it
 * does not hold (a hub checkpoint with its facts, an add-on of such a base); those start READY. A model
 * is created for upload when its weights can only come from an upload:
 *
 * - a `HUB_BASE_MODEL` with `checkpointFormat: HUB` that states neither `baseModelDetails.parameterCount`
 *   (what a registered checkpoint gives and an uploaded one learns from its safetensors headers) nor a
 *   `modelHubUrl` (where a registered checkpoint's weights are);
 * - a `HUB_PEFT_ADDON` or `HUB_TEFT_ADDON` whose base model is an uploaded checkpoint (UPLOADING, or
 *   holding uploaded files): no hub has an adapter of weights that exist only here.
 *
 * Any other model of an upload kind may still start an upload with its first `:getUploadEndpoint`.
 */
export async function createdForUpload(ctx: RequestContext, model: Model, env: ResourceEnvironment): Promise<boolean> {
  if (model.kind === 'HUB_BASE_MODEL') {
    const details = model.baseModelDetails;
    return details?.checkpointFormat === 'HUB' && details.parameterCount === undefined && (model.modelHubUrl ?? '') === '';
  }
  if (model.kind !== 'HUB_PEFT_ADDON' && model.kind !== 'HUB_TEFT_ADDON') return false;
  const baseName = model.peftDetails?.baseModel;
  if (baseName === undefined) return false;
  const base = await env.storage.resources.get(ctx, baseName);
  if (!base) return false;
  if ((base.data as Model).state === 'UPLOADING') return true;
  return (await listModelFiles(ctx, env.storage.blobs, baseName)).length > 0;
}
