import { failedPrecondition, invalidArgument } from '../../errors/index.js';
import type { JsonObject } from '../../contracts/json.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { parseResourceName } from '../../names/resource-name.js';
import { isPlainObject } from '../../validation/paths.js';
import { assertSameAccountReference, type ResourceEnvironment } from '../common/resource-environment.js';
import { isSpecifiedPrecision, type JobProgress, type Precision } from '../common/schema-parts.js';
import { datasetNameOf } from '../datasets/dataset-rules.js';
import type { Model } from '../models/model-schema.js';
import type { BatchInferenceJob, BatchInferenceJobState } from './batch-inference-job-schema.js';
import { batchInferenceJobTerminalStates } from './batch-inference-job-state-machine.js';

/**
 * `inferenceParameters.extraBody`: a JSON object as a string, merged into every row's request (`{}` when
 * empty). Checked when the job is created and again when it runs.
 * @throws INVALID_ARGUMENT naming the field when it is not a JSON object.
 */
export function parseExtraBody(extraBody: string | undefined): JsonObject {
  const text = extraBody ?? '';
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidArgument('inferenceParameters.extraBody is not valid JSON', { field: 'inferenceParameters.extraBody' });
  }
  if (!isPlainObject(parsed)) throw invalidArgument('inferenceParameters.extraBody must be a JSON object', { field: 'inferenceParameters.extraBody' });
  return parsed;
}

/** A JobProgress with every counter at zero: what a new job shows. */
export function initialJobProgress(): JobProgress {
  return {
    percent: 0, epoch: 0, totalInputRequests: 0, totalProcessedRequests: 0, successfullyProcessedRequests: 0,
    failedRequests: 0, outputRows: 0, inputTokens: 0, outputTokens: 0, cachedInputTokenCount: 0,
  };
}

/**
 * Checks the form of a reference to a resource that need not exist yet (an output dataset or model,
 * an evaluator): a name of `collection` in `accountId`; 403 for another account, like every
 * cross-account call.
 */
export const assertSameAccountName = assertSameAccountReference;

function isStopped(state: BatchInferenceJobState | undefined): boolean {
  return state !== undefined && batchInferenceJobTerminalStates.includes(state);
}

/**
 * The precision a model runs at by default: its `baseModelDetails.defaultPrecision`; for an add-on,
 * that of its base model (when the base exists); FP16 otherwise.
 */
export async function defaultPrecisionOf(ctx: RequestContext, env: ResourceEnvironment, model: Model): Promise<Precision> {
  const own = model.baseModelDetails?.defaultPrecision;
  if (isSpecifiedPrecision(own)) return own;
  const baseName = model.peftDetails?.baseModel ?? '';
  if (baseName !== '') {
    // The base may be gone (add-ons outlive it): a plain read, not a reference check.
    const base = await env.storage.resources.get(ctx, baseName);
    const details = base?.data.baseModelDetails;
    if (isPlainObject(details) && isSpecifiedPrecision(details.defaultPrecision)) return details.defaultPrecision;
  }
  return 'FP16';
}

/**
 * What a continued job takes from the job it continues, unless it sets the field itself. Not the output
 * dataset: a continued job writes its own (the earlier job's stays as it was).
 */
const inheritedFromContinuedJob = ['model', 'inputDatasetId', 'inferenceParameters', 'precision'] as const;

function inherit<K extends (typeof inheritedFromContinuedJob)[number]>(
  job: BatchInferenceJob,
  previous: BatchInferenceJob,
  field: K,
): void {
  const given: BatchInferenceJob[K] = job[field];
  const unset = given === undefined || given === '' || (field === 'precision' && given === 'PRECISION_UNSPECIFIED');
  const inherited = previous[field];
  if (unset && inherited !== undefined) job[field] = structuredClone(inherited);
}

/**
 * Rules of a new batch inference job (mutates `job`, which carries its name and initial state):
 * - `continuedFromJobName` must name an existing job of the account that has stopped (COMPLETED,
 *   FAILED, CANCELLED or EXPIRED; FAILED_PRECONDITION otherwise); fields the new job leaves out
 *   (model, input dataset, inference parameters, precision) are taken from it;
 * - `model` and `inputDatasetId` are required unless continuing; both must exist in the account;
 * - dataset references may be bare ids or full names and are stored as full names; the output
 *   dataset need not exist yet (the job creates it) but must be in the account;
 * - `precision` unspecified → the model's default (see `defaultPrecisionOf`);
 * - `createdBy` is the caller's e-mail, `jobProgress` starts at zero.
 */
export async function applyBatchInferenceJobCreateRules(ctx: RequestContext, job: BatchInferenceJob, env: ResourceEnvironment): Promise<void> {
  const { accountId } = parseResourceName(job.name, 'batchInferenceJobs');
  const createdBy = ctx.principal?.email;
  if (createdBy) job.createdBy = createdBy;
  else delete job.createdBy;

  const continuedFrom = job.continuedFromJobName ?? '';
  if (continuedFrom !== '') {
    const previous = await env.requireReference<BatchInferenceJob>(ctx, continuedFrom, 'batchInferenceJobs', accountId, 'continuedFromJobName');
    if (!isStopped(previous.data.state)) {
      throw failedPrecondition(`${continuedFrom} is ${previous.data.state ?? ''}; only a stopped job (${batchInferenceJobTerminalStates.join(', ')}) can be continued`, { reason: 'JOB_NOT_STOPPED' });
    }
    for (const field of inheritedFromContinuedJob) inherit(job, previous.data, field);
  }

  parseExtraBody(job.inferenceParameters?.extraBody);

  const model = job.model ?? '';
  if (model === '') throw invalidArgument('model is required unless continuedFromJobName is given', { field: 'model' });
  const modelRecord = await env.requireReference<Model>(ctx, model, 'models', accountId, 'model');

  const input = job.inputDatasetId ?? '';
  if (input === '') throw invalidArgument('inputDatasetId is required unless continuedFromJobName is given', { field: 'inputDatasetId' });
  job.inputDatasetId = datasetNameOf(input, accountId, 'inputDatasetId');
  await env.requireReference(ctx, job.inputDatasetId, 'datasets', accountId, 'inputDatasetId');

  const output = job.outputDatasetId ?? '';
  if (output !== '') {
    job.outputDatasetId = datasetNameOf(output, accountId, 'outputDatasetId');
    assertSameAccountName(job.outputDatasetId, 'datasets', accountId, 'outputDatasetId');
  }

  if (!isSpecifiedPrecision(job.precision)) job.precision = await defaultPrecisionOf(ctx, env, modelRecord.data);
  job.jobProgress = initialJobProgress();
}
