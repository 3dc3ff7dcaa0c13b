import { failedPrecondition, invalidArgument } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { checkEgressUrl } from '../../outbound/egress-url.js';
import { parseResourceName } from '../../names/resource-name.js';
import { assertSameAccountName, initialJobProgress } from '../batch-inference-jobs/batch-inference-job-rules.js';
import type { ResourceEnvironment } from '../common/resource-environment.js';
import { datasetNameOf } from '../datasets/dataset-rules.js';
import { addonModelKinds } from '../deployed-models/deployed-model-rules.js';
import type { Evaluator } from '../evaluators/evaluator-schema.js';
import type { Model } from '../models/model-schema.js';
import { chunkSizeLimits, loraRankDefault, loraRankLimits, nodeCountDefault, type ReinforcementFineTuningJob } from './reinforcement-fine-tuning-job-schema.js';

/**
 * Whether `base` may be trained with reinforcement learning at `loraRank`: LoRA (rank > 0) unless the
 * model says `rlLoraTunable: false`; full-parameter (rank 0) only when it says `rlFullParameterTunable:
 * true`. FAILED_PRECONDITION otherwise, and for an add-on given as the base.
 */
export function assertRlTunable(base: Model, loraRank: number, field = 'trainingConfig.baseModel'): void {
  if (base.kind !== undefined && addonModelKinds.has(base.kind)) {
    throw failedPrecondition(`${base.name ?? 'the base model'} is an add-on (${base.kind}); name its base model, or give it as trainingConfig.warmStartFrom`, { field });
  }
  if (loraRank === 0 && base.rlFullParameterTunable !== true) {
    throw failedPrecondition(`${base.name ?? 'the base model'} does not allow full-parameter reinforcement learning (rlFullParameterTunable is not true); give trainingConfig.loraRank > 0 for LoRA`, { field: 'trainingConfig.loraRank' });
  }
  if (loraRank > 0 && (loraRank < loraRankLimits.minimum || loraRank > loraRankLimits.maximum)) {
    throw invalidArgument(`trainingConfig.loraRank must be 0 (full-parameter) or ${loraRankLimits.minimum} to ${loraRankLimits.maximum} (the rank of a PEFT add-on)`, { field: 'trainingConfig.loraRank' });
  }
  if (loraRank > 0 && base.rlLoraTunable === false) {
    throw failedPrecondition(`${base.name ?? 'the base model'} does not allow LoRA reinforcement learning (rlLoraTunable is false)`, { field });
  }
}

/**
 * Checks `mcpServer`: an absolute http(s) URL without credentials (the MCP server's streamable HTTP
 * endpoint), by the egress client's own URL rules ({@link checkEgressUrl}). Whether it can be reached, and
 * whether the gateway allows its address, is found in VALIDATING, where the job lists the server's tools.
 * INVALID_ARGUMENT naming `mcpServer`.
 */
export function checkMcpServerUrl(value: string): void {
  try {
    checkEgressUrl(value, { allowLoopback: true, allowPrivate: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^outbound request refused: /, '') : String(error);
    throw invalidArgument(`mcpServer must be an http(s) URL of an MCP server (streamable HTTP transport): ${reason}`, { field: 'mcpServer', cause: error });
  }
}

/**
 * Rules of a new reinforcement fine-tuning job (mutates `job`, which carries its name and initial
 * state):
 * - `dataset` is required and must exist in the account (a bare id is accepted and stored as the
 *   full name); `evaluationDataset` likewise when given, and it excludes `evalAutoCarveout`;
 * - `evaluator` is required and must exist in the account; one whose build failed is FAILED_PRECONDITION
 *   (one still BUILDING is waited for in VALIDATING);
 * - one of `trainingConfig.baseModel` and `trainingConfig.warmStartFrom` is required; they exclude each
 *   other (a warm start, a PEFT add-on, already fixes the base) and must exist; the base must allow RL
 *   at the rank ({@link assertRlTunable}); `trainingConfig.outputModel` is a model name of the account
 *   that does not exist yet (the job creates it);
 * - `mcpServer`, when given, is an http(s) URL ({@link checkMcpServerUrl});
 * - defaults: `chunkSize` 200, `nodeCount` 1, `trainingConfig.loraRank` 8 (a warm start's own rank);
 *   `jobProgress` starts at zero; `createdBy` is the caller's e-mail.
 */
export async function applyReinforcementFineTuningJobCreateRules(
  ctx: RequestContext,
  job: ReinforcementFineTuningJob,
  env: ResourceEnvironment,
): Promise<void> {
  const { accountId } = parseResourceName(job.name, 'reinforcementFineTuningJobs');
  const createdBy = ctx.principal?.email;
  if (createdBy) job.createdBy = createdBy;
  else delete job.createdBy;

  const dataset = job.dataset ?? '';
  if (dataset === '') throw invalidArgument('dataset is required', { field: 'dataset' });
  job.dataset = datasetNameOf(dataset, accountId, 'dataset');
  await env.requireReference(ctx, job.dataset, 'datasets', accountId, 'dataset');

  const evaluator = job.evaluator ?? '';
  if (evaluator === '') throw invalidArgument('evaluator is required', { field: 'evaluator' });
  const evaluatorRecord = (await env.requireReference(ctx, evaluator, 'evaluators', accountId, 'evaluator')).data as Evaluator;
  if (evaluatorRecord.state === 'BUILD_FAILED') {
    throw failedPrecondition(`evaluator ${evaluator} failed to build (${evaluatorRecord.status?.message ?? 'BUILD_FAILED'}); fix it before training with it`, { field: 'evaluator' });
  }

  const evaluationDataset = job.evaluationDataset ?? '';
  if (evaluationDataset !== '') {
    if (job.evalAutoCarveout === true) {
      throw invalidArgument('evalAutoCarveout must not be true when evaluationDataset is given', { field: 'evalAutoCarveout' });
    }
    job.evaluationDataset = datasetNameOf(evaluationDataset, accountId, 'evaluationDataset');
    await env.requireReference(ctx, job.evaluationDataset, 'datasets', accountId, 'evaluationDataset');
  }

  const config = job.trainingConfig ?? {};
  job.trainingConfig = config;
  const baseModel = config.baseModel ?? '';
  const warmStartFrom = config.warmStartFrom ?? '';
  if (baseModel !== '' && warmStartFrom !== '') {
    throw invalidArgument('trainingConfig.baseModel and trainingConfig.warmStartFrom are mutually exclusive', { field: 'trainingConfig.warmStartFrom' });
  }
  if (baseModel === '' && warmStartFrom === '') {
    throw invalidArgument('trainingConfig.baseModel (or trainingConfig.warmStartFrom, an add-on to continue training) is required', { field: 'trainingConfig.baseModel' });
  }
  if (baseModel !== '') {
    const base = (await env.requireReference(ctx, baseModel, 'models', accountId, 'trainingConfig.baseModel')).data as Model;
    config.loraRank ??= loraRankDefault;
    assertRlTunable(base, config.loraRank);
  } else {
    const addon = (await env.requireReference(ctx, warmStartFrom, 'models', accountId, 'trainingConfig.warmStartFrom')).data as Model;
    const rank = addon.peftDetails?.r;
    if (addon.kind !== 'HUB_PEFT_ADDON' || rank === undefined || (addon.peftDetails?.baseModel ?? '') === '') {
      throw invalidArgument(`trainingConfig.warmStartFrom ${warmStartFrom} is not a PEFT add-on (HUB_PEFT_ADDON with peftDetails)`, { field: 'trainingConfig.warmStartFrom' });
    }
    if (config.loraRank !== undefined && config.loraRank !== rank) {
      throw invalidArgument(`trainingConfig.loraRank ${config.loraRank} differs from the rank ${rank} of ${warmStartFrom}`, { field: 'trainingConfig.loraRank' });
    }
    config.loraRank = rank;
    const base = (await env.requireReference(ctx, addon.peftDetails?.baseModel ?? '', 'models', accountId, 'trainingConfig.warmStartFrom')).data as Model;
    assertRlTunable(base, rank, 'trainingConfig.warmStartFrom');
  }
  const outputModel = config.outputModel ?? '';
  if (outputModel !== '') {
    assertSameAccountName(outputModel, 'models', accountId, 'trainingConfig.outputModel');
    if (await env.storage.resources.get(ctx, outputModel)) {
      throw invalidArgument(`trainingConfig.outputModel ${outputModel} already exists; the job creates its output model`, { field: 'trainingConfig.outputModel', reason: 'ALREADY_EXISTS' });
    }
  }

  if (job.mcpServer !== undefined && job.mcpServer !== '') checkMcpServerUrl(job.mcpServer);

  if (job.chunkSize === undefined) job.chunkSize = chunkSizeLimits.default;
  if (job.nodeCount === undefined) job.nodeCount = nodeCountDefault;
  job.jobProgress = initialJobProgress();
}
