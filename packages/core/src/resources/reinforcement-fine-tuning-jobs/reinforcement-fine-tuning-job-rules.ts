import { invalidArgument } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { parseResourceName } from '../../names/resource-name.js';
import { assertSameAccountName, initialJobProgress } from '../batch-inference-jobs/batch-inference-job-rules.js';
import type { ResourceEnvironment } from '../common/resource-environment.js';
import { datasetNameOf } from '../datasets/dataset-rules.js';
import { chunkSizeLimits, nodeCountDefault, type ReinforcementFineTuningJob } from './reinforcement-fine-tuning-job-schema.js';

/**
 * Rules of a new reinforcement fine-tuning job (mutates `job`, which carries its name and initial
 * state):
 * - `dataset` is required and must exist in the account (a bare id is accepted and stored as the
 *   full name); `evaluationDataset` likewise when given, and it excludes `evalAutoCarveout`;
 * - `evaluator` is required; only its form `accounts/{a}/evaluators/{id}` (same account) is checked,
 *   as evaluators are not stored by the gateway;
 * - `trainingConfig.baseModel` and `trainingConfig.warmStartFrom` must exist when given and exclude
 *   each other (a warm start already fixes the base); `trainingConfig.outputModel` is a model name of
 *   the account (the job creates it);
 * - defaults: `chunkSize` 200, `nodeCount` 1; `jobProgress` starts at zero; `createdBy` is the
 *   caller's e-mail.
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
  assertSameAccountName(evaluator, 'evaluators', accountId, 'evaluator');

  const evaluationDataset = job.evaluationDataset ?? '';
  if (evaluationDataset !== '') {
    if (job.evalAutoCarveout === true) {
      throw invalidArgument('evalAutoCarveout must not be true when evaluationDataset is given', { field: 'evalAutoCarveout' });
    }
    job.evaluationDataset = datasetNameOf(evaluationDataset, accountId, 'evaluationDataset');
    await env.requireReference(ctx, job.evaluationDataset, 'datasets', accountId, 'evaluationDataset');
  }

  const config = job.trainingConfig;
  if (config !== undefined) {
    const baseModel = config.baseModel ?? '';
    const warmStartFrom = config.warmStartFrom ?? '';
    if (baseModel !== '' && warmStartFrom !== '') {
      throw invalidArgument('trainingConfig.baseModel and trainingConfig.warmStartFrom are mutually exclusive', { field: 'trainingConfig.warmStartFrom' });
    }
    if (baseModel !== '') await env.requireReference(ctx, baseModel, 'models', accountId, 'trainingConfig.baseModel');
    if (warmStartFrom !== '') await env.requireReference(ctx, warmStartFrom, 'models', accountId, 'trainingConfig.warmStartFrom');
    const outputModel = config.outputModel ?? '';
    if (outputModel !== '') assertSameAccountName(outputModel, 'models', accountId, 'trainingConfig.outputModel');
  }

  if (job.chunkSize === undefined) job.chunkSize = chunkSizeLimits.default;
  if (job.nodeCount === undefined) job.nodeCount = nodeCountDefault;
  job.jobProgress = initialJobProgress();
}
