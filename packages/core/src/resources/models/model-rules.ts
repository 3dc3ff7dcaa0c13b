import { invalidArgument } from '../../errors/index.js';
import { parseResourceName } from '../../names/resource-name.js';
import type { JsonObject } from '../../ports/json.js';
import { isPlainObject } from '../../validation/paths.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { assertValidDate } from '../common/date.js';
import type { ResourceEnvironment } from '../common/resource-environment.js';

/**
 * Cross-field rules of a model (spec: Model, BaseModelDetails, PEFTDetails). Mutates `model` to fill
 * defaults: kind HUB_PEFT_ADDON, baseModelDetails.worldSize 1.
 */
export function applyModelRules(model: JsonObject): void {
  if (model.kind === undefined || model.kind === 'KIND_UNSPECIFIED') model.kind = 'HUB_PEFT_ADDON';
  const kind = model.kind;

  if (kind === 'HUB_BASE_MODEL' && model.baseModelDetails === undefined) {
    throw invalidArgument('baseModelDetails is required when kind is HUB_BASE_MODEL', { field: 'baseModelDetails' });
  }
  if (kind !== 'HUB_BASE_MODEL' && model.baseModelDetails !== undefined) {
    throw invalidArgument(`baseModelDetails must not be set when kind is ${String(kind)}`, { field: 'baseModelDetails' });
  }
  const peftKind = kind === 'HUB_PEFT_ADDON' || kind === 'HUB_TEFT_ADDON';
  if (peftKind && model.peftDetails === undefined) {
    throw invalidArgument(`peftDetails is required when kind is ${String(kind)}`, { field: 'peftDetails' });
  }
  if (kind === 'HUB_TEFT_ADDON' && model.teftDetails === undefined) {
    throw invalidArgument('teftDetails is required when kind is HUB_TEFT_ADDON', { field: 'teftDetails' });
  }
  if (kind !== 'HUB_TEFT_ADDON' && model.teftDetails !== undefined) {
    throw invalidArgument(`teftDetails must not be set when kind is ${String(kind)}`, { field: 'teftDetails' });
  }

  const details = model.baseModelDetails;
  if (isPlainObject(details)) {
    if (details.worldSize === undefined) details.worldSize = 1;
    const isHub = details.checkpointFormat === 'HUB';
    const hasFiles = Array.isArray(details.hubFiles) && details.hubFiles.length > 0;
    if (isHub && !hasFiles) {
      throw invalidArgument('baseModelDetails.hubFiles is required when checkpointFormat is HUB', { field: 'baseModelDetails.hubFiles' });
    }
    if (!isHub && details.hubFiles !== undefined) {
      throw invalidArgument('baseModelDetails.hubFiles may be set only when checkpointFormat is HUB', { field: 'baseModelDetails.hubFiles' });
    }
  }

  const peft = model.peftDetails;
  if (isPlainObject(peft)) {
    parseResourceName(String(peft.baseModel), 'models', 'peftDetails.baseModel');
    if (Array.isArray(peft.targetModules) && peft.targetModules.length === 0) {
      throw invalidArgument('peftDetails.targetModules must name at least one module', { field: 'peftDetails.targetModules' });
    }
    if (typeof peft.mergeAddonModelName === 'string' && peft.mergeAddonModelName !== '') {
      parseResourceName(peft.mergeAddonModelName, 'models', 'peftDetails.mergeAddonModelName');
    }
  }

  const draft = typeof model.defaultDraftModel === 'string' ? model.defaultDraftModel : '';
  if (draft !== '') {
    parseResourceName(draft, 'models', 'defaultDraftModel');
    if (model.defaultDraftTokenCount === undefined) {
      throw invalidArgument('defaultDraftTokenCount must be given when defaultDraftModel is given', { field: 'defaultDraftTokenCount' });
    }
  }

  if (model.conversationConfig !== undefined && isPlainObject(model.conversationConfig)) {
    const config = model.conversationConfig;
    if (config.style === 'jinja' && (typeof config.template !== 'string' || config.template === '')) {
      throw invalidArgument('conversationConfig.template is required when style is "jinja"', { field: 'conversationConfig.template' });
    }
  }
  assertValidDate(model.deprecationDate, 'deprecationDate');
}

/** The model names a model refers to: dotted field path → reference (only the ones that are set). */
function modelReferences(model: JsonObject): Map<string, string> {
  const references = new Map<string, string>();
  const peft = isPlainObject(model.peftDetails) ? model.peftDetails : undefined;
  if (peft && typeof peft.baseModel === 'string') references.set('peftDetails.baseModel', peft.baseModel);
  if (peft && typeof peft.mergeAddonModelName === 'string' && peft.mergeAddonModelName !== '') {
    references.set('peftDetails.mergeAddonModelName', peft.mergeAddonModelName);
  }
  if (typeof model.defaultDraftModel === 'string' && model.defaultDraftModel !== '') references.set('defaultDraftModel', model.defaultDraftModel);
  return references;
}

/**
 * Every model a model names (its PEFT base model, merge add-on, default draft model) must exist in the
 * model's own account: 403 for another account (opaque), INVALID_ARGUMENT when missing. On update only
 * the references that change are checked, so a model whose draft model was deleted since stays editable.
 */
export async function checkModelReferences(ctx: RequestContext, model: JsonObject, env: ResourceEnvironment, previous?: JsonObject): Promise<void> {
  const { accountId } = parseResourceName(String(model.name), 'models');
  const before = previous ? modelReferences(previous) : new Map<string, string>();
  for (const [field, reference] of modelReferences(model)) {
    if (before.get(field) === reference) continue;
    await env.requireReference(ctx, reference, 'models', accountId, field);
  }
}
