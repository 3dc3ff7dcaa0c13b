import { invalidArgument } from '../../errors/index.js';
import { parseResourceName } from '../../names/resource-name.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { assertValidDate } from '../common/date.js';
import type { ResourceEnvironment } from '../common/resource-environment.js';
import type { Model } from './model-schema.js';

/**
 * Cross-field rules of a model (spec: Model, BaseModelDetails, PEFTDetails). Mutates `model` to fill
 * defaults: kind HUB_PEFT_ADDON, baseModelDetails.worldSize 1.
 */
export function applyModelRules(model: Model): void {
  if (model.kind === undefined || model.kind === 'KIND_UNSPECIFIED') model.kind = 'HUB_PEFT_ADDON';
  const kind = model.kind;

  if (kind === 'HUB_BASE_MODEL' && model.baseModelDetails === undefined) {
    throw invalidArgument('baseModelDetails is required when kind is HUB_BASE_MODEL', { field: 'baseModelDetails' });
  }
  if (kind !== 'HUB_BASE_MODEL' && model.baseModelDetails !== undefined) {
    throw invalidArgument(`baseModelDetails must not be set when kind is ${kind}`, { field: 'baseModelDetails' });
  }
  const peftKind = kind === 'HUB_PEFT_ADDON' || kind === 'HUB_TEFT_ADDON';
  if (peftKind && model.peftDetails === undefined) {
    throw invalidArgument(`peftDetails is required when kind is ${kind}`, { field: 'peftDetails' });
  }
  if (kind === 'HUB_TEFT_ADDON' && model.teftDetails === undefined) {
    throw invalidArgument('teftDetails is required when kind is HUB_TEFT_ADDON', { field: 'teftDetails' });
  }
  if (kind !== 'HUB_TEFT_ADDON' && model.teftDetails !== undefined) {
    throw invalidArgument(`teftDetails must not be set when kind is ${kind}`, { field: 'teftDetails' });
  }

  const details = model.baseModelDetails;
  if (details !== undefined) {
    if (details.worldSize === undefined) details.worldSize = 1;
    const isHub = details.checkpointFormat === 'HUB';
    const hasFiles = details.hubFiles !== undefined && details.hubFiles.length > 0;
    if (isHub && !hasFiles) {
      throw invalidArgument('baseModelDetails.hubFiles is required when checkpointFormat is HUB', { field: 'baseModelDetails.hubFiles' });
    }
    if (!isHub && details.hubFiles !== undefined) {
      throw invalidArgument('baseModelDetails.hubFiles may be set only when checkpointFormat is HUB', { field: 'baseModelDetails.hubFiles' });
    }
  }

  const peft = model.peftDetails;
  if (peft !== undefined) {
    parseResourceName(peft.baseModel, 'models', 'peftDetails.baseModel');
    if (peft.targetModules.length === 0) {
      throw invalidArgument('peftDetails.targetModules must name at least one module', { field: 'peftDetails.targetModules' });
    }
    if (peft.mergeAddonModelName !== undefined && peft.mergeAddonModelName !== '') {
      parseResourceName(peft.mergeAddonModelName, 'models', 'peftDetails.mergeAddonModelName');
    }
  }

  const draft = model.defaultDraftModel ?? '';
  if (draft !== '') {
    parseResourceName(draft, 'models', 'defaultDraftModel');
    if (model.defaultDraftTokenCount === undefined) {
      throw invalidArgument('defaultDraftTokenCount must be given when defaultDraftModel is given', { field: 'defaultDraftTokenCount' });
    }
  }

  const config = model.conversationConfig;
  if (config !== undefined) {
    if (config.style === 'jinja' && (config.template === undefined || config.template === '')) {
      throw invalidArgument('conversationConfig.template is required when style is "jinja"', { field: 'conversationConfig.template' });
    }
  }
  assertValidDate(model.deprecationDate, 'deprecationDate');
}

/** The model names a model refers to: dotted field path → reference (only the ones that are set). */
function modelReferences(model: Model): Map<string, string> {
  const references = new Map<string, string>();
  const peft = model.peftDetails;
  if (peft) references.set('peftDetails.baseModel', peft.baseModel);
  if (peft && peft.mergeAddonModelName !== undefined && peft.mergeAddonModelName !== '') {
    references.set('peftDetails.mergeAddonModelName', peft.mergeAddonModelName);
  }
  if (model.defaultDraftModel !== undefined && model.defaultDraftModel !== '') references.set('defaultDraftModel', model.defaultDraftModel);
  return references;
}

/**
 * Every model a model names (its PEFT base model, merge add-on, default draft model) must exist in the
 * model's own account: 403 for another account (opaque), INVALID_ARGUMENT when missing. On update only
 * the references that change are checked, so a model whose draft model was deleted since stays editable.
 */
export async function checkModelReferences(ctx: RequestContext, model: Model, env: ResourceEnvironment, previous?: Model): Promise<void> {
  const { accountId } = parseResourceName(model.name, 'models');
  const before = previous ? modelReferences(previous) : new Map<string, string>();
  for (const [field, reference] of modelReferences(model)) {
    if (before.get(field) === reference) continue;
    await env.requireReference(ctx, reference, 'models', accountId, field);
  }
}
