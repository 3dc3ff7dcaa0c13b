import { createHash } from 'node:crypto';
import {
  decodeReferenceLora, encodeReferenceLora, ReferenceLoraError, referenceAdapterConfigFile, referenceAdapterWeightsFile,
} from '../engine/reference-lora.js';
import { deleteBlobsUnder } from '../blobs/delete-under.js';
import { aborted, failedPrecondition, invalidArgument } from '../errors/index.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { BlobStore } from '../ports/storage.js';
import { checkpointFileKey, type Trainer, type TrainerCheckpoint, type TrainStepInput, type TrainStepResult } from '../ports/trainer.js';
import { grpoStep, initialReferenceLora } from './grpo.js';

/** The pseudo accelerator type the reference trainer reports its CPU seconds under (it uses no accelerator). */
export const referenceAcceleratorType = 'REFERENCE_CPU';
/** Blob-store key prefix of every reference-trainer checkpoint. */
export const referenceCheckpointRoot = 'rft-checkpoints/reference/';

const jobPrefix = (job: string) => `${referenceCheckpointRoot}${job}/`;
const stepPrefix = (job: string, step: number) => `${jobPrefix(job)}step-${String(step).padStart(6, '0')}/`;
/** The step's record (checkpoint, metrics, accelerator seconds), written last: its presence means the step is done. */
const resultKey = (job: string, step: number) => `${stepPrefix(job, step)}result.json`;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export interface ReferenceTrainerOptions {
  /** CPU time of the calling process (default `process.cpuUsage`), for the step's accelerator seconds. */
  readonly cpuUsage?: () => { user: number; system: number };
}

/**
 * The reference trainer: a real GRPO step (see {@link grpoStep}) on a reference-engine add-on
 * (engine/reference-lora.ts), in-process, with its checkpoints in the blob store under
 * `rft-checkpoints/reference/<job>/step-NNNNNN/files/`. Idempotent per (job, step): the step's
 * `result.json` is written after its files, and a step that finds it answers it unchanged.
 */
export function createReferenceTrainer(blobs: BlobStore, options: ReferenceTrainerOptions = {}): Trainer {
  const cpuUsage = options.cpuUsage ?? (() => process.cpuUsage());

  async function storedResult(ctx: RequestContext, job: string, step: number): Promise<TrainStepResult | undefined> {
    const stored = await blobs.get(ctx, resultKey(job, step));
    return stored ? (JSON.parse(new TextDecoder().decode(stored.bytes)) as TrainStepResult) : undefined;
  }

  async function readFile(ctx: RequestContext, from: TrainerCheckpoint, path: string, required: boolean): Promise<Uint8Array | undefined> {
    const entry = from.files.find((f) => f.path === path);
    if (!entry) {
      if (required) throw failedPrecondition(`the checkpoint at ${from.keyPrefix} has no ${path}; the reference trainer continues only from reference add-ons`);
      return undefined;
    }
    const stored = await blobs.get(ctx, checkpointFileKey(from, path));
    if (!stored) throw failedPrecondition(`checkpoint file ${path} at ${from.keyPrefix} is not in the blob store`);
    if (stored.bytes.byteLength !== entry.sizeBytes || sha256(stored.bytes) !== entry.sha256) {
      throw failedPrecondition(`checkpoint file ${path} at ${from.keyPrefix} does not match its recorded size and SHA-256`);
    }
    return stored.bytes;
  }

  async function startingWeights(ctx: RequestContext, input: TrainStepInput) {
    const { hyperparameters: hp } = input;
    if (!input.from) return initialReferenceLora(input.job, hp.loraRank, hp.loraAlpha ?? hp.loraRank);
    const weightsFile = await readFile(ctx, input.from, referenceAdapterWeightsFile, true);
    const config = await readFile(ctx, input.from, referenceAdapterConfigFile, false);
    let weights;
    try {
      weights = decodeReferenceLora(weightsFile!, config);
    } catch (error) {
      if (error instanceof ReferenceLoraError) throw failedPrecondition(`the checkpoint at ${input.from.keyPrefix} is not a valid reference add-on: ${error.message}`);
      throw error;
    }
    if (!weights) throw failedPrecondition(`the checkpoint at ${input.from.keyPrefix} is not a reference-engine add-on (its weights lack the format's metadata marker)`);
    if (weights.rank !== hp.loraRank) throw failedPrecondition(`the checkpoint at ${input.from.keyPrefix} has rank ${weights.rank} but loraRank is ${hp.loraRank}`);
    return weights;
  }

  function checkInput(input: TrainStepInput): void {
    const hp = input.hyperparameters;
    if (!Number.isSafeInteger(input.step) || input.step < 1) throw invalidArgument(`step must be a positive integer, not ${input.step}`, { field: 'step' });
    if (input.job.length === 0 || input.job.startsWith('/') || input.job.endsWith('/')) throw invalidArgument(`job must be a resource name, not ${JSON.stringify(input.job)}`, { field: 'job' });
    if (input.from && !(input.from.step < input.step)) throw invalidArgument(`step ${input.step} cannot start from the checkpoint of step ${input.from.step}`, { field: 'from' });
    if (!Number.isSafeInteger(hp.loraRank) || hp.loraRank < 1 || hp.loraRank > 1024) {
      throw failedPrecondition(`the reference trainer trains LoRA add-ons of rank 1 to 1024; loraRank is ${hp.loraRank}`, { field: 'trainingConfig.loraRank' });
    }
    if (!(Number.isFinite(hp.learningRate) && hp.learningRate > 0)) throw invalidArgument('learningRate must be a positive number', { field: 'trainingConfig.learningRate' });
    if (hp.loraAlpha !== undefined && !(Number.isFinite(hp.loraAlpha) && hp.loraAlpha > 0)) throw invalidArgument('loraAlpha must be a positive number', { field: 'trainingConfig.loraAlpha' });
    if (hp.klBeta !== undefined && !(Number.isFinite(hp.klBeta) && hp.klBeta >= 0)) throw invalidArgument('klBeta must be a non-negative number', { field: 'lossConfig.klBeta' });
    if (hp.optimizerWeightDecay !== undefined && !(Number.isFinite(hp.optimizerWeightDecay) && hp.optimizerWeightDecay >= 0)) {
      throw invalidArgument('optimizerWeightDecay must be a non-negative number', { field: 'trainingConfig.optimizerWeightDecay' });
    }
  }

  return {
    name: 'reference',

    async step(ctx, input) {
      checkInput(input);
      const done = await storedResult(ctx, input.job, input.step);
      if (done) return done;
      const from = await startingWeights(ctx, input);
      if (input.signal?.aborted) throw aborted('the training step was cancelled');

      const before = cpuUsage();
      const { weights, metrics } = grpoStep(from, input.groups, input.hyperparameters, input.step);
      const contents = encodeReferenceLora(weights, input.baseModel);
      const used = cpuUsage();
      const cpuSeconds = (used.user - before.user + used.system - before.system) / 1e6;

      const keyPrefix = `${stepPrefix(input.job, input.step)}files/`;
      const files = Object.entries(contents).map(([path, bytes]) => ({ path, sizeBytes: bytes.byteLength, sha256: sha256(bytes) }));
      for (const [path, bytes] of Object.entries(contents)) {
        if (input.signal?.aborted) throw aborted('the training step was cancelled');
        await blobs.put(ctx, `${keyPrefix}${path}`, bytes, path.endsWith('.json') ? 'application/json' : 'application/octet-stream');
      }
      // Another instance may have finished the same step meanwhile: its answer stands.
      const raced = await storedResult(ctx, input.job, input.step);
      if (raced) return raced;
      const result: TrainStepResult = {
        checkpoint: { step: input.step, keyPrefix, files },
        metrics,
        acceleratorSeconds: { [referenceAcceleratorType]: cpuSeconds },
      };
      await blobs.put(ctx, resultKey(input.job, input.step), new TextEncoder().encode(JSON.stringify(result)), 'application/json');
      return result;
    },

    async discard(ctx, job, keep) {
      const keepPrefix = keep?.keyPrefix.startsWith(jobPrefix(job)) ? keep.keyPrefix.replace(/files\/?$/, '') : undefined;
      await deleteBlobsUnder(ctx, blobs, jobPrefix(job), (key) => keepPrefix !== undefined && key.startsWith(keepPrefix));
    },
  };
}
