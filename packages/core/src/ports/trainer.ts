import type { JsonValue } from '../contracts/json.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { ModelFileEntry } from './model-files.js';

/** One sampled answer to a prompt, and what the evaluator made of it. */
export interface TrainingRollout {
  /** The assistant's final text: what the policy produced and the step reinforces or discourages. */
  readonly completion: string;
  /** The whole assistant turn (tool calls and results) when there is more than the text. */
  readonly messages?: readonly JsonValue[];
  /** The evaluator's score in 0..1; absent when the evaluation failed (such rollouts take no part in the step). */
  readonly reward?: number;
  readonly completionTokens?: number;
}

/** The rollouts of one prompt: a group, whose rewards are compared with each other (group-relative advantages). */
export interface TrainingGroup {
  /** The row's index in the training dataset. */
  readonly rowIndex: number;
  /** The prompt's messages, as the row gives them. */
  readonly messages: readonly JsonValue[];
  readonly rollouts: readonly TrainingRollout[];
}

/**
 * The job's hyper-parameters as the trainer reads them: the job's `trainingConfig` and `lossConfig`, and
 * the rollouts' sampling. Optional fields are absent when the job leaves them unset (or 0, "the trainer's
 * default"); a trainer documents which ones it uses (docs/rft-trainers.md, docs/accelerator-trainers.md).
 */
export interface TrainerHyperparameters {
  readonly learningRate: number;
  /** LoRA rank; 0 means full-parameter training. */
  readonly loraRank: number;
  /** LoRA alpha (the adapter's scale is alpha / rank). No job field sets it: trainers default it to the rank. */
  readonly loraAlpha?: number;
  /** `lossConfig.method` (see api-facts.md for the enum). */
  readonly lossMethod: string;
  /** KL penalty coefficient (`lossConfig.klBeta`), when given. */
  readonly klBeta?: number;
  readonly temperature?: number;
  readonly maxOutputTokens?: number;
  /** `trainingConfig.batchSize`: tokens per batch (the trainer's unit), when given. */
  readonly batchSize?: number;
  /** `trainingConfig.batchSizeSamples`: samples (rollouts) per optimizer batch, when given. */
  readonly batchSizeSamples?: number;
  /** `trainingConfig.gradientAccumulationSteps`, when given. */
  readonly gradientAccumulationSteps?: number;
  /** `trainingConfig.learningRateWarmupSteps`: steps over which the learning rate rises linearly to `learningRate`. */
  readonly learningRateWarmupSteps?: number;
  /** `trainingConfig.optimizerWeightDecay`, when given. */
  readonly optimizerWeightDecay?: number;
  /** `trainingConfig.maxContextLength`: longest prompt plus completion trained on, in tokens, when given. */
  readonly maxContextLength?: number;
  /** `trainingConfig.jinjaTemplate`: the chat template that renders a group's messages for training, when given. */
  readonly jinjaTemplate?: string;
}

/**
 * The job's experiment tracker (`trackerConfig`, when `enabled`). `apiKey` is a secret: a trainer must
 * never write it where others read it (a manifest, a log, a checkpoint).
 */
export interface TrainerTracker {
  readonly apiKey?: string;
  readonly project?: string;
  readonly entity?: string;
  readonly runId?: string;
  readonly url?: string;
}

/** The job's `objectStoreConfig`: where a trainer may read from or write to the team's own object store. */
export interface TrainerObjectStore {
  /** The name of a secret holding the store's credentials (for the Kubernetes trainers, a Secret of the trainer namespace). */
  readonly credentialsSecret?: string;
  /** A cloud IAM role to assume for the store. */
  readonly iamRoleArn?: string;
}

/** An adapter (or full-weight) checkpoint: its files in the blob store, under one key prefix. */
export interface TrainerCheckpoint {
  /** Training steps applied so far (1 after the first step). */
  readonly step: number;
  /** Blob-store key prefix of the checkpoint's files; `files[].path` are relative to it. */
  readonly keyPrefix: string;
  /** The files as a model upload records them (the adapter's config and weights), so a model can be made of them. */
  readonly files: readonly ModelFileEntry[];
}

/**
 * The blob key of a checkpoint file: `keyPrefix` and `path` joined by one `/` (the port's rule for
 * `TrainerCheckpoint.files[].path`, which every trainer and reader of checkpoints follows).
 */
export function checkpointFileKey(checkpoint: Pick<TrainerCheckpoint, 'keyPrefix'>, path: string): string {
  return checkpoint.keyPrefix.endsWith('/') ? `${checkpoint.keyPrefix}${path}` : `${checkpoint.keyPrefix}/${path}`;
}

export interface TrainStepInput {
  /** The job's resource name, e.g. `accounts/a/reinforcementFineTuningJobs/j`. */
  readonly job: string;
  /** 1-based and global across epochs and chunks. With `job`, it identifies the step: see {@link Trainer.step}. */
  readonly step: number;
  /** The base model's resource name. */
  readonly baseModel: string;
  /** The checkpoint the step starts from; absent for the first step (or the warm-start add-on's files). */
  readonly from?: TrainerCheckpoint;
  readonly groups: readonly TrainingGroup[];
  readonly hyperparameters: TrainerHyperparameters;
  /** The job's tracker, when `trackerConfig.enabled`. */
  readonly tracker?: TrainerTracker;
  /** The job's `objectStoreConfig`, when it gives one. */
  readonly objectStore?: TrainerObjectStore;
  readonly nodeCount: number;
  /** The accelerator type the job trains on, when the deployment names one. */
  readonly acceleratorType?: string;
  readonly signal?: AbortSignal;
}

export interface TrainStepResult {
  readonly checkpoint: TrainerCheckpoint;
  /** Numbers the step measured (e.g. `loss`, `meanAdvantage`, `gradNorm`), shown in the job's metrics. */
  readonly metrics: Readonly<Record<string, number>>;
  /** Accelerator time the step used, per accelerator type (e.g. `{ NVIDIA_H100_80GB: 12.5 }`). */
  readonly acceleratorSeconds: Readonly<Record<string, number>>;
}

/**
 * Runs the training step of a reinforcement fine-tuning job: from a checkpoint and a chunk's rewarded
 * rollouts to the next checkpoint. Core binds the reference trainer (it updates a reference-engine add-on
 * in-process); runtime plugins offer accelerator trainers that run a trainer container as a Kubernetes Job.
 *
 * `step` is idempotent for (`job`, `step`): a repeated call (after a crash, or a lost answer) returns the
 * checkpoint of the first call that completed, never applies the step twice. Checkpoint keys are derived
 * from (`job`, `step`), so two instances racing the same step write the same object.
 */
export interface Trainer {
  /** A short name shown in the job's metrics, e.g. `reference` or `gpux-kubernetes`. */
  readonly name: string;
  step(ctx: RequestContext, input: TrainStepInput): Promise<TrainStepResult>;
  /** Removes a job's checkpoints other than `keep` (after the output model took its files, or the job was deleted). */
  discard(ctx: RequestContext, job: string, keep?: TrainerCheckpoint): Promise<void>;
}
