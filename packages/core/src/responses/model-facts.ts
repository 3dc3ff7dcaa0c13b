import type { JsonObject } from '../contracts/json.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { ModelTarget } from '../ports/serving-directory.js';
import type { ResourceStore } from '../ports/storage.js';

/** What the Responses API needs to know of the model a request resolved to. */
export interface ModelFacts {
  /** Tokens the deployment's replicas hold in context, when known. */
  readonly contextLength: number | undefined;
  readonly supportsImageInput: boolean;
}

const positive = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined);

/**
 * The facts of a resolved model, as its replicas run: the context length is the deployment's
 * `maxContextLength`, else the model's `contextLength`, else its base model's (an add-on inherits it);
 * image input follows the model's `supportsImageInput`, else its base model's.
 */
export async function readModelFacts(resources: ResourceStore, ctx: RequestContext, target: ModelTarget): Promise<ModelFacts> {
  const [model, deployment] = await Promise.all([resources.get(ctx, target.model), resources.get(ctx, target.deployment)]);
  const modelData: JsonObject = model?.data ?? {};
  const deploymentData: JsonObject = deployment?.data ?? {};
  const baseName = typeof deploymentData.baseModel === 'string' && deploymentData.baseModel !== target.model ? deploymentData.baseModel : undefined;
  const needsBase = baseName !== undefined && (positive(modelData.contextLength) === undefined || typeof modelData.supportsImageInput !== 'boolean');
  const baseData: JsonObject = needsBase ? ((await resources.get(ctx, baseName))?.data ?? {}) : {};
  const supports = typeof modelData.supportsImageInput === 'boolean' ? modelData.supportsImageInput : baseData.supportsImageInput === true;
  return {
    contextLength: positive(deploymentData.maxContextLength) ?? positive(modelData.contextLength) ?? positive(baseData.contextLength),
    supportsImageInput: supports,
  };
}
