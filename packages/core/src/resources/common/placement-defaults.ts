import { invalidArgument } from '../../errors/index.js';
import { parseResourceName } from '../../names/resource-name.js';
import type { JsonObject } from '../../ports/json.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { isPlainObject } from '../../validation/paths.js';
import { specDefaultAcceleratorType } from './schema-parts.js';
import type { BaseModelFacts } from '../../ports/serving-advisor.js';
import type { ResourceEnvironment } from './resource-environment.js';

export type { BaseModelFacts };

export function baseModelFacts(model: JsonObject): BaseModelFacts {
  const details = isPlainObject(model.baseModelDetails) ? model.baseModelDetails : {};
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const facts: { -readonly [K in keyof BaseModelFacts]: BaseModelFacts[K] } = {
    worldSize: num(details.worldSize) ?? 1,
  };
  const modelType = str(details.modelType);
  if (modelType) facts.modelType = modelType;
  const parameterCount = str(details.parameterCount);
  if (parameterCount) facts.parameterCount = parameterCount;
  const draft = str(model.defaultDraftModel);
  if (draft) facts.defaultDraftModel = draft;
  const draftCount = num(model.defaultDraftTokenCount);
  if (draftCount !== undefined) facts.defaultDraftTokenCount = draftCount;
  const precision = str(details.defaultPrecision);
  if (precision && precision !== 'PRECISION_UNSPECIFIED') facts.defaultPrecision = precision;
  const contextLength = num(model.contextLength);
  if (contextLength) facts.contextLength = contextLength;
  return facts;
}

/**
 * Serving defaults shared by deployment shapes and deployments: the specification's default accelerator type,
 * accelerator count (from the sizing advisor, else the base model's worldSize), draft model and token
 * count from the base model, precision from the base model. Draft settings are checked for consistency.
 */
export function applyServingDefaults(
  data: JsonObject,
  facts: BaseModelFacts,
  minimumAcceleratorCount: (data: JsonObject, facts: BaseModelFacts) => number | undefined,
): void {
  if (data.acceleratorType === undefined || data.acceleratorType === 'ACCELERATOR_TYPE_UNSPECIFIED') data.acceleratorType = specDefaultAcceleratorType;
  if ((data.precision === undefined || data.precision === 'PRECISION_UNSPECIFIED') && facts.defaultPrecision) data.precision = facts.defaultPrecision;
  if (data.acceleratorCount === undefined) data.acceleratorCount = minimumAcceleratorCount(data, facts) ?? facts.worldSize;
  if (data.draftModel === undefined && facts.defaultDraftModel) data.draftModel = facts.defaultDraftModel;
  if (data.draftTokenCount === undefined && typeof data.draftModel === 'string' && data.draftModel !== '' && facts.defaultDraftTokenCount !== undefined) {
    data.draftTokenCount = facts.defaultDraftTokenCount;
  }
  if (typeof data.draftModel === 'string' && data.draftModel !== '') {
    parseResourceName(data.draftModel, 'models', 'draftModel');
    if (data.draftTokenCount === undefined) {
      throw invalidArgument('draftTokenCount must be given when draftModel is given and the base model has no default', { field: 'draftTokenCount' });
    }
  }
}

/**
 * The draft model (given or defaulted from the base model) must exist in the account: 403 for another
 * account, INVALID_ARGUMENT when missing. On update only a changed draft model is checked.
 */
export async function requireDraftModel(ctx: RequestContext, data: JsonObject, env: ResourceEnvironment, accountId: string, previous?: JsonObject): Promise<void> {
  const draft = typeof data.draftModel === 'string' ? data.draftModel : '';
  if (draft === '' || (previous !== undefined && previous.draftModel === draft)) return;
  await env.requireReference(ctx, draft, 'models', accountId, 'draftModel');
}
