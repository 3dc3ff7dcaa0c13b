import { invalidArgument } from '../../errors/index.js';
import { parseResourceName } from '../../names/resource-name.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { isSpecifiedPrecision, specDefaultAcceleratorType, type Precision } from './schema-parts.js';
import type { BaseModelFacts } from '../../ports/serving-advisor.js';
import type { ResourceEnvironment } from './resource-environment.js';

export type { BaseModelFacts };

/** What {@link baseModelFacts} reads of a base model (fields of `Model`). */
export type BaseModelFields = {
  baseModelDetails?: { worldSize?: number; modelType?: string; parameterCount?: string; defaultPrecision?: Precision };
  defaultDraftModel?: string;
  defaultDraftTokenCount?: number;
  contextLength?: number;
};

/**
 * The serving settings deployments and deployment shapes share (fields of both `Deployment` and
 * `DeploymentShape`), which {@link applyServingDefaults} fills in.
 */
export type ServingSettings = {
  acceleratorType?: string;
  precision?: Precision;
  acceleratorCount?: number;
  draftModel?: string;
  draftTokenCount?: number;
};

export function baseModelFacts(model: BaseModelFields): BaseModelFacts {
  const details = model.baseModelDetails ?? {};
  const facts: { -readonly [K in keyof BaseModelFacts]: BaseModelFacts[K] } = {
    worldSize: details.worldSize ?? 1,
  };
  if (details.modelType) facts.modelType = details.modelType;
  if (details.parameterCount) facts.parameterCount = details.parameterCount;
  if (model.defaultDraftModel) facts.defaultDraftModel = model.defaultDraftModel;
  if (model.defaultDraftTokenCount !== undefined) facts.defaultDraftTokenCount = model.defaultDraftTokenCount;
  if (isSpecifiedPrecision(details.defaultPrecision)) facts.defaultPrecision = details.defaultPrecision;
  if (model.contextLength) facts.contextLength = model.contextLength;
  return facts;
}

/**
 * Serving defaults shared by deployment shapes and deployments: the specification's default accelerator type,
 * accelerator count (from the sizing advisor, else the base model's worldSize), draft model and token
 * count from the base model, precision from the base model. Draft settings are checked for consistency.
 */
export function applyServingDefaults(
  data: ServingSettings,
  facts: BaseModelFacts,
  minimumAcceleratorCount: (data: ServingSettings, facts: BaseModelFacts) => number | undefined,
): void {
  if (data.acceleratorType === undefined || data.acceleratorType === 'ACCELERATOR_TYPE_UNSPECIFIED') data.acceleratorType = specDefaultAcceleratorType;
  if ((data.precision === undefined || data.precision === 'PRECISION_UNSPECIFIED') && isSpecifiedPrecision(facts.defaultPrecision)) {
    data.precision = facts.defaultPrecision;
  }
  if (data.acceleratorCount === undefined) data.acceleratorCount = minimumAcceleratorCount(data, facts) ?? facts.worldSize;
  if (data.draftModel === undefined && facts.defaultDraftModel) data.draftModel = facts.defaultDraftModel;
  if (data.draftTokenCount === undefined && data.draftModel !== undefined && data.draftModel !== '' && facts.defaultDraftTokenCount !== undefined) {
    data.draftTokenCount = facts.defaultDraftTokenCount;
  }
  if (data.draftModel !== undefined && data.draftModel !== '') {
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
export async function requireDraftModel(
  ctx: RequestContext,
  data: Pick<ServingSettings, 'draftModel'>,
  env: ResourceEnvironment,
  accountId: string,
  previous?: Pick<ServingSettings, 'draftModel'>,
): Promise<void> {
  const draft = data.draftModel ?? '';
  if (draft === '' || (previous !== undefined && previous.draftModel === draft)) return;
  await env.requireReference(ctx, draft, 'models', accountId, 'draftModel');
}
