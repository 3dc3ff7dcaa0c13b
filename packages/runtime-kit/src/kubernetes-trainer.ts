import {
  aborted,
  checkpointFileKey,
  failedPrecondition,
  invalidArgument,
  unavailable,
  type JsonObject,
  type JsonValue,
  type ModelFileEntry,
  type ModelFileSource,
  type RequestContext,
  type Trainer,
  type TrainerCheckpoint,
  type TrainingFiles,
  type TrainStepInput,
  type TrainStepResult,
} from '@berth/core';
import type { KubernetesManifest } from './kubernetes-manifests.js';
import type { KubernetesApi } from './kubernetes-provisioner.js';
import {
  renderTrainerJob, renderTrainerSecret, trainerJobName, trainerSecretName, trainerStepSelector, type TrainerJobOptions,
} from './kubernetes-trainer-manifests.js';

/** Version of the document a trainer container reads from `BERTH_TRAIN_SPEC_URL` (docs/accelerator-trainers.md). */
export const trainerContractVersion = 1;

/** The files a step must upload: a LoRA adapter, or full weights when `loraRank` is 0. */
export function trainerOutputFiles(loraRank: number): readonly string[] {
  return loraRank > 0 ? ['adapter_config.json', 'adapter_model.safetensors'] : ['config.json', 'model.safetensors'];
}

export interface KubernetesTrainerOptions extends Omit<TrainerJobOptions, 'namespace'> {
  readonly api: KubernetesApi;
  /** Where steps' inputs and checkpoints live, and who signs their URLs (core's `trainingFilesToken`). */
  readonly files: TrainingFiles;
  /** The gateway's base URL as pods reach it, e.g. `http://berth.berth.svc.cluster.local:8080`. */
  readonly gatewayUrl: string;
  /** Accelerator type to train on when the step names none. */
  readonly acceleratorType: string;
  /** Accelerators per node. Default 8. */
  readonly acceleratorCount?: number;
  /** Default `berth`. */
  readonly namespace?: string;
  /** Interval between Job status polls. Default 5 s. */
  readonly pollIntervalMs?: number;
  /** How long the signed URLs of a step stay valid. Default: `activeDeadlineSeconds` plus one hour. */
  readonly urlTtlSeconds?: number;
  /** The uploaded files of the base model, when it has any (a model registered by name has none: the trainer fetches it by name). */
  readonly baseModelFiles?: (ctx: RequestContext, baseModel: string) => Promise<ModelFileSource | undefined>;
}

interface JobStatusView {
  readonly startTime?: string;
  readonly completionTime?: string;
  readonly conditions?: readonly { readonly type?: string; readonly status?: string; readonly reason?: string; readonly message?: string }[];
}

/** A rollout as the input document carries it (JSON: absent fields left out). */
function rolloutDocument(rollout: TrainStepInput['groups'][number]['rollouts'][number]): JsonObject {
  return {
    completion: rollout.completion,
    ...(rollout.messages ? { messages: [...rollout.messages] } : {}),
    ...(rollout.reward !== undefined ? { reward: rollout.reward } : {}),
    ...(rollout.completionTokens !== undefined ? { completionTokens: rollout.completionTokens } : {}),
  };
}

interface ContainerExit {
  readonly exitCode?: number;
  readonly message?: string;
  readonly reason?: string;
}

/**
 * The error of a failed step, by the container's exit code (docs/accelerator-trainers.md): 2 the input is unusable
 * (INVALID_ARGUMENT: the job fails), 3 the base model or starting checkpoint is unusable (FAILED_PRECONDITION:
 * the job fails), anything else — 75 (`EX_TEMPFAIL`), a kill, the deadline — UNAVAILABLE: the step may run again.
 */
function stepFailure(input: TrainStepInput, condition: { readonly reason?: string; readonly message?: string }, exit: ContainerExit | undefined): Error {
  const why = exit?.message?.trim() || condition.message || exit?.reason || condition.reason || 'Failed';
  const message = `training step ${input.step} of ${input.job} failed on Kubernetes${exit?.exitCode !== undefined ? ` (exit code ${exit.exitCode})` : ''}: ${why}`;
  if (exit?.exitCode === 2) return invalidArgument(message, { reason: 'TRAINER_INPUT_REFUSED' });
  if (exit?.exitCode === 3) return failedPrecondition(message, { reason: 'TRAINER_FAILED' });
  return unavailable(message, { reason: 'TRAINER_FAILED' });
}

const stepFolder = (step: number) => `steps/${step}`;

const secretNamePattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Checks the job's `objectStoreConfig` for a Kubernetes trainer: `credentialsSecret` names a Secret of the
 * trainer namespace whose name starts with the job's account id and `-` (so one account cannot mount
 * another's credentials), `iamRoleArn` is an ARN. INVALID_ARGUMENT `TRAINER_INPUT_REFUSED` otherwise (the job fails).
 */
export function checkObjectStore(input: Pick<TrainStepInput, 'job' | 'objectStore'>): void {
  const secret = input.objectStore?.credentialsSecret;
  const account = input.job.split('/')[1] ?? '';
  if (secret !== undefined && (!secretNamePattern.test(secret) || secret.length > 253 || !secret.startsWith(`${account}-`))) {
    throw invalidArgument(
      `objectStoreConfig.credentialsSecret ${JSON.stringify(secret)} must name a Secret of the trainer namespace whose name starts with "${account}-" (the job's account)`,
      { field: 'objectStoreConfig.credentialsSecret', reason: 'TRAINER_INPUT_REFUSED' },
    );
  }
  const role = input.objectStore?.iamRoleArn;
  if (role !== undefined && !/^arn:[^:\s]+:iam::[^:\s]*:role\/\S+$/.test(role)) {
    throw invalidArgument(`objectStoreConfig.iamRoleArn ${JSON.stringify(role)} is not an IAM role ARN (arn:<partition>:iam::<account>:role/<name>)`, {
      field: 'objectStoreConfig.iamRoleArn', reason: 'TRAINER_INPUT_REFUSED',
    });
  }
}

/**
 * The accelerator trainer: runs each training step as a Kubernetes Job of the team's trainer container
 * ({@link renderTrainerJob}) on the vendor's accelerators, and reads the checkpoint it uploads.
 *
 * A step: (1) answers the recorded result when the step already completed (idempotent for (job, step));
 * (2) unless a Job of the step already runs (a crash after creating it, another instance on the step), writes
 * the step's input document (rollouts with rewards, hyper-parameters, signed GET URLs of the base model's and
 * the previous checkpoint's files, signed PUT URLs of the files to make) and creates the Job; (3) polls it until
 * Complete or Failed; (4) checks that every expected file arrived, records the result and deletes the Job.
 * Accelerator seconds are the Job's wall time × accelerators per node × nodes.
 */
export function kubernetesTrainer(options: KubernetesTrainerOptions): Trainer {
  const namespace = options.namespace ?? 'berth';
  const pollMs = options.pollIntervalMs ?? 5000;
  const acceleratorCount = options.acceleratorCount ?? 8;
  const ttlMs = (options.urlTtlSeconds ?? (options.activeDeadlineSeconds ?? 6 * 3600) + 3600) * 1000;
  const { files, api } = options;
  const absolute = (url: string) => `${options.gatewayUrl.replace(/\/+$/, '')}${url}`;
  const signed = (job: string, path: string, method: 'GET' | 'PUT') => absolute(files.signedUrl(job, path, method, ttlMs));

  const readResult = async (ctx: RequestContext, job: string, step: number): Promise<TrainStepResult | undefined> => {
    const bytes = await files.read(ctx, job, `${stepFolder(step)}/result.json`);
    return bytes ? (JSON.parse(Buffer.from(bytes).toString('utf8')) as TrainStepResult) : undefined;
  };

  /** The signed GET URLs of the checkpoint a step starts from, copying it into the job's files when it lies elsewhere. */
  const startingFiles = async (ctx: RequestContext, input: TrainStepInput): Promise<JsonValue> => {
    const from = input.from;
    if (!from) return null;
    const ours = files.prefixOf(input.job);
    const inJobFiles = from.keyPrefix.startsWith(ours);
    const folder = inJobFiles ? from.keyPrefix.slice(ours.length).replace(/\/+$/, '') : `${stepFolder(input.step)}/from`;
    const listed = [];
    for (const file of from.files) {
      const path = `${folder}/${file.path}`;
      if (!inJobFiles) await files.copyFrom(ctx, checkpointFileKey(from, file.path), input.job, path);
      listed.push({ path: file.path, sizeBytes: file.sizeBytes, sha256: file.sha256, url: signed(input.job, path, 'GET') });
    }
    return { step: from.step, files: listed };
  };

  const inputDocument = async (ctx: RequestContext, input: TrainStepInput, acceleratorType: string): Promise<JsonObject> => {
    const folder = stepFolder(input.step);
    const base = await options.baseModelFiles?.(ctx, input.baseModel);
    const outputs = Object.fromEntries(trainerOutputFiles(input.hyperparameters.loraRank).map((name) => [name, signed(input.job, `${folder}/${name}`, 'PUT')]));
    return {
      contractVersion: trainerContractVersion,
      job: input.job,
      step: input.step,
      baseModel: input.baseModel,
      baseModelFiles: base ? base.files.map((f) => ({ path: f.path, sizeBytes: f.sizeBytes, sha256: f.sha256, url: absolute(base.signedUrl(f.path, ttlMs / 1000)) })) : [],
      hyperparameters: { ...input.hyperparameters } as JsonObject,
      // The tracker without its API key (the container reads it from BERTH_TRAIN_TRACKER_API_KEY).
      tracker: input.tracker ? (Object.fromEntries(Object.entries(input.tracker).filter(([key]) => key !== 'apiKey')) as JsonObject) : null,
      objectStore: input.objectStore ? ({ ...input.objectStore } as JsonObject) : null,
      nodeCount: input.nodeCount,
      acceleratorType,
      acceleratorCount,
      from: await startingFiles(ctx, input),
      groups: input.groups.map((g) => ({ rowIndex: g.rowIndex, messages: [...g.messages], rollouts: g.rollouts.map(rolloutDocument) })),
      outputs: { files: outputs, metrics: signed(input.job, `${folder}/metrics.json`, 'PUT') },
    };
  };

  /** The exit code and termination message of the trainer container of the step's last failed pod, when a pod is left to tell. */
  const containerExit = async (ctx: RequestContext, selector: string): Promise<ContainerExit | undefined> => {
    const pods = await api.list(ctx, { apiVersion: 'v1', kind: 'Pod', namespace, labelSelector: selector });
    for (const pod of [...pods].reverse()) {
      const statuses = ((pod.status ?? {}) as { containerStatuses?: readonly { name?: string; state?: { terminated?: ContainerExit } }[] }).containerStatuses ?? [];
      const terminated = statuses.find((c) => c.name === 'trainer')?.state?.terminated;
      if (terminated && terminated.exitCode !== 0) return terminated;
    }
    return undefined;
  };

  const removeJob = async (ctx: RequestContext, job: string, step: number, multiNode: boolean) => {
    const name = trainerJobName(job, step);
    await api.delete(ctx, { apiVersion: 'batch/v1', kind: 'Job', namespace, name });
    if (multiNode) await api.delete(ctx, { apiVersion: 'v1', kind: 'Service', namespace, name });
  };

  const stepJobExists = async (ctx: RequestContext, input: TrainStepInput): Promise<boolean> =>
    (await api.list(ctx, { apiVersion: 'batch/v1', kind: 'Job', namespace, labelSelector: trainerStepSelector(input.job, input.step) })).length > 0;

  const waitForJob = async (ctx: RequestContext, input: TrainStepInput): Promise<JobStatusView | undefined> => {
    const selector = trainerStepSelector(input.job, input.step);
    for (;;) {
      if (input.signal?.aborted) {
        await removeJob(ctx, input.job, input.step, input.nodeCount > 1);
        throw aborted(`training step ${input.step} of ${input.job} was stopped`, { reason: 'TRAINING_STOPPED' });
      }
      const jobs: readonly KubernetesManifest[] = await api.list(ctx, { apiVersion: 'batch/v1', kind: 'Job', namespace, labelSelector: selector });
      const status = (jobs[0]?.status ?? {}) as JobStatusView;
      const done = status.conditions?.find((c) => c.status === 'True' && (c.type === 'Complete' || c.type === 'Failed'));
      if (done?.type === 'Complete') return status;
      if (done?.type === 'Failed') {
        const exit = await containerExit(ctx, selector);
        await removeJob(ctx, input.job, input.step, input.nodeCount > 1);
        throw stepFailure(input, done, exit);
      }
      // Gone: another instance finished the step and deleted its Job (the caller reads the recorded result), or someone deleted it.
      if (jobs.length === 0) return undefined;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  };

  const collect = async (ctx: RequestContext, input: TrainStepInput): Promise<{ checkpoint: TrainerCheckpoint; metrics: Record<string, number> }> => {
    const folder = stepFolder(input.step);
    const made: ModelFileEntry[] = [];
    for (const name of trainerOutputFiles(input.hyperparameters.loraRank)) {
      const head = await files.head(ctx, input.job, `${folder}/${name}`);
      if (!head) throw failedPrecondition(`the trainer of step ${input.step} of ${input.job} exited without uploading ${name}`, { reason: 'TRAINER_FAILED' });
      made.push({ path: name, sizeBytes: head.size, sha256: head.sha256 });
    }
    const metrics: Record<string, number> = {};
    const raw = await files.read(ctx, input.job, `${folder}/metrics.json`);
    if (raw) {
      try {
        const parsed: unknown = JSON.parse(Buffer.from(raw).toString('utf8'));
        if (parsed && typeof parsed === 'object') {
          for (const [key, value] of Object.entries(parsed)) if (typeof value === 'number' && Number.isFinite(value)) metrics[key] = value;
        }
      } catch {
        // Metrics are informative: an unreadable file leaves them out, the checkpoint still counts.
      }
    }
    return { checkpoint: { step: input.step, keyPrefix: files.keyOf(input.job, folder), files: made }, metrics };
  };

  return {
    name: `${options.vendor}-kubernetes`,
    async step(ctx, input) {
      const recorded = await readResult(ctx, input.job, input.step);
      if (recorded) return recorded;
      const acceleratorType = input.acceleratorType ?? options.acceleratorType;
      // A Job of this step may already run (this instance crashed after creating it, or another instance
      // holds the step): follow it. Applying again would change its pod template (the signed URL's expiry
      // differs), which Kubernetes refuses for a Job.
      if (!(await stepJobExists(ctx, input))) {
        checkObjectStore(input);
        const document = await inputDocument(ctx, input, acceleratorType);
        await files.write(ctx, input.job, `${stepFolder(input.step)}/input.json`, Buffer.from(JSON.stringify(document)), 'application/json');
        const rendered = renderTrainerJob(
          {
            job: input.job, step: input.step, specUrl: signed(input.job, `${stepFolder(input.step)}/input.json`, 'GET'), acceleratorType, acceleratorCount, nodeCount: input.nodeCount,
            hyperparameters: input.hyperparameters, ...(input.tracker ? { tracker: input.tracker } : {}), ...(input.objectStore ? { objectStore: input.objectStore } : {}),
          },
          { ...options, namespace },
        );
        const secret = renderTrainerSecret(input, { ...options, namespace });
        if (secret) await api.apply(ctx, secret);
        if (rendered.service) await api.apply(ctx, rendered.service);
        await api.apply(ctx, rendered.job).catch(async (error: unknown) => {
          // Lost a race with another instance creating the same Job: follow theirs.
          if (!(await stepJobExists(ctx, input))) throw error;
        });
      }
      const status = await waitForJob(ctx, input);
      if (!status) {
        const finished = await readResult(ctx, input.job, input.step);
        if (finished) return finished;
        throw failedPrecondition(`the Kubernetes Job of training step ${input.step} of ${input.job} disappeared`, { reason: 'TRAINER_FAILED' });
      }
      const { checkpoint, metrics } = await collect(ctx, input);
      const started = Date.parse(status.startTime ?? '');
      const ended = Date.parse(status.completionTime ?? '');
      const wallSeconds = Number.isFinite(started) && Number.isFinite(ended) ? Math.max(0, (ended - started) / 1000) : 0;
      const result: TrainStepResult = {
        checkpoint,
        metrics,
        acceleratorSeconds: { [acceleratorType]: wallSeconds * acceleratorCount * input.nodeCount },
      };
      await files.write(ctx, input.job, `${stepFolder(input.step)}/result.json`, Buffer.from(JSON.stringify(result)), 'application/json');
      await removeJob(ctx, input.job, input.step, input.nodeCount > 1);
      return result;
    },
    async discard(ctx, job, keep) {
      const kept = keep ? [`${stepFolder(keep.step)}/`] : [];
      await files.deleteFiles(ctx, job, kept);
      await api.delete(ctx, { apiVersion: 'v1', kind: 'Secret', namespace, name: trainerSecretName(job) });
    },
  };
}
