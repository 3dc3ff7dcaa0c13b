/**
 * Reinforcement fine-tuning jobs run on the durable queue: creating a job stores it with a run record and
 * one queue job in a transaction; whichever gateway instance's workers claim the queue job move it
 * through VALIDATING → PENDING → RUNNING (⇄ IDLE while capacity is missing) → WRITING_RESULTS →
 * COMPLETED or EARLY_STOPPED. Each chunk of an epoch is one training step: its prompts are sampled
 * through the serving layer under the current policy, every answer is scored by the evaluator, then
 * `Trainer.step` turns the rewarded groups into the next checkpoint. The checkpoint, the loop's position
 * and the job's progress commit together (compare-and-set on the step counter), so a worker that dies
 * mid-chunk leaves at most an uncommitted step, which its successor runs again; the trainer answers a
 * repeated (job, step) with the checkpoint it made the first time, so no step is applied twice.
 */
import { setMaxListeners } from 'node:events';
import type { JsonObject } from '../contracts/json.js';
import type { RequestContext } from '../contracts/request-context.js';
import { Code, GatewayError, isGatewayError } from '../errors/index.js';
import { evaluatorRunnerToken, servingDirectoryToken, trainerToken } from '../kernel/tokens.js';
import type { EvaluatorSpec } from '../ports/evaluator-runner.js';
import type { ClaimedJob } from '../ports/storage.js';
import type { ModelTarget, ServingDirectory } from '../ports/serving-directory.js';
import type {
  Trainer, TrainerCheckpoint, TrainerHyperparameters, TrainerObjectStore, TrainerTracker, TrainStepResult,
} from '../ports/trainer.js';
import type { JobState } from '../resources/common/schema-parts.js';
import type { Dataset } from '../resources/datasets/dataset-schema.js';
import type { Deployment } from '../resources/deployments/deployment-schema.js';
import type { Evaluator } from '../resources/evaluators/evaluator-schema.js';
import { listModelFiles, modelFileKey, modelFilesPrefix } from '../resources/models/model-files.js';
import type { Model } from '../resources/models/model-schema.js';
import { assertRlTunable } from '../resources/reinforcement-fine-tuning-jobs/reinforcement-fine-tuning-job-rules.js';
import {
  acceleratorSecondsField, moveRftJobIn, readRftJob, readRftRun, rftRunRecordName, reinforcementFineTuningQueue, transitionRftJob, updateRftRun,
  type RftRunRecord,
} from '../resources/reinforcement-fine-tuning-jobs/reinforcement-fine-tuning-job-runs.js';
import { loraRankDefault, type ReinforcementFineTuningJob } from '../resources/reinforcement-fine-tuning-jobs/reinforcement-fine-tuning-job-schema.js';
import type { ChatModelClient } from '../responses/model-client.js';
import { responseToolProvidersToken } from '../responses/tokens.js';
import { AttachedClientJobRunner, sleepUnlessAborted } from '../workers/job-stops.js';
import type { BackoffOptions } from '../workers/backoff.js';
import type { QueueJobContext } from '../workers/queue-handler.js';
import type { BatchCapacity } from '../batch/batch-capacity.js';
import { chunkRanges, readRlRows, RlRowProblem, splitRows, type RftRows, type RlRow } from './rft-dataset.js';
import { outputMetrics, outputStats, rewardPlateaued } from './rft-metrics.js';
import { policyIdPrefix, type RftModels } from './rft-models.js';
import { rolloutDefaults, rolloutSampling, runRollouts, type RolloutCounts, type RolloutRun, type RolloutSampling } from './rft-rollouts.js';
import { mcpProvider, openMcpTools, type RolloutTools } from './rft-tools.js';

export interface RftRunnerOptions {
  /** How often a running job re-reads its record to notice a cancel or delete, and a waiting one its capacity or evaluator. Default 500 ms. */
  readonly pollMs?: number;
  /** How often a running job checks that its deployment was not scaled to zero under it. Default 5 s. */
  readonly capacityKeepMs?: number;
  /** Lease of the queue job (renewed while it runs). Default 30 s. */
  readonly leaseMs?: number;
  readonly backoff?: BackoffOptions;
}

/** The learning rate a job that names none trains with. */
export const defaultLearningRate = 1e-4;

const transientCodes: ReadonlySet<Code> = new Set([Code.UNAVAILABLE, Code.DEADLINE_EXCEEDED, Code.RESOURCE_EXHAUSTED, Code.ABORTED]);
const handOverReason = 'rft-hand-over';
const runningStates: readonly JobState[] = ['JOB_STATE_RUNNING', 'JOB_STATE_IDLE'];
/** States the worker fails or pauses a job from. */
const workingStates: readonly JobState[] = [
  'JOB_STATE_CREATING', 'JOB_STATE_VALIDATING', 'JOB_STATE_PENDING', 'JOB_STATE_RUNNING', 'JOB_STATE_IDLE', 'JOB_STATE_RE_QUEUEING', 'JOB_STATE_WRITING_RESULTS',
];

/** The job stopped under this worker in a way that ends this attempt quietly (deleted). */
class StoppedError extends Error {}

/** What one attempt knows of the job: its rows, evaluator and training parameters (read once per attempt). */
interface JobPlan {
  readonly job: ReinforcementFineTuningJob;
  readonly rows: RftRows;
  readonly ranges: [number, number][];
  readonly epochs: number;
  readonly baseModel: string;
  readonly warmStartFrom?: string;
  readonly evaluator: EvaluatorSpec;
  readonly sampling: RolloutSampling;
  readonly hyperparameters: TrainerHyperparameters;
  /** `mcpServer`, when the rollouts have tools. */
  readonly mcpServer?: string;
  readonly tracker?: TrainerTracker;
  readonly objectStore?: TrainerObjectStore;
}

/** Why a job cannot run: the code and message it fails with. */
class Refusal extends Error {
  constructor(
    readonly code: Code,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Runs reinforcement fine-tuning jobs. Core contributes its queue handler; the component that reaches
 * models (the HTTP transport's inference proxy) attaches itself as the client, as for batch jobs. The
 * trainer (`trainerToken`) and the evaluator runner (`evaluatorRunnerToken`) are resolved per job.
 */
export class RftJobRunner extends AttachedClientJobRunner<ChatModelClient> {
  /**
   * @param capacity gives jobs a deployment of their base model that enables add-ons (a temporary one when
   *   the model has none). Without it a job uses the base model's deployment as it stands.
   * @param models turns checkpoints into the policy add-on and the output model.
   */
  constructor(
    private readonly options: RftRunnerOptions,
    private readonly models: RftModels,
    private readonly capacity?: BatchCapacity,
  ) {
    super(reinforcementFineTuningQueue, options, handOverReason);
  }

  protected async handleJob(ctx: QueueJobContext, queued: ClaimedJob, name: string): Promise<void> {
    try {
      await this.advance(ctx, name);
    } catch (error) {
      if (error instanceof StoppedError) return;
      if (queued.attempt >= queued.maxAttempts && !ctx.signal.aborted) {
        // Worth a person's look, not a final failure: the job keeps its checkpoint and `:resume` continues it.
        await this.stop(ctx, name, 'JOB_STATE_PAUSED', Code.UNAVAILABLE, `the job was paused after ${queued.attempt} attempts: ${error instanceof Error ? error.message : String(error)}`)
          .catch(() => undefined);
        return;
      }
      throw error;
    }
  }

  private trainer(ctx: QueueJobContext): Trainer | undefined {
    return ctx.resolver.isBound(trainerToken) ? ctx.resolver.resolve(trainerToken) : undefined;
  }

  private directory(ctx: QueueJobContext): ServingDirectory {
    return ctx.resolver.resolve(servingDirectoryToken);
  }

  private asCreator(ctx: QueueJobContext, run: RftRunRecord, signal?: AbortSignal): RequestContext {
    return { requestId: ctx.requestId, principal: run.principal, ...(signal ? { signal } : {}) };
  }

  /** Moves the job on from wherever it stands (a retried attempt resumes from the stored state). */
  private async advance(ctx: QueueJobContext, name: string): Promise<void> {
    let job = await readRftJob(ctx, ctx.storage.resources, name);
    if (!job) return this.forget(ctx, name);
    const run = await readRftRun(ctx, ctx.storage.resources, name);
    if (!run) throw new Error(`${name} has no run record`);
    if (job.state === 'JOB_STATE_CREATING') job = await transitionRftJob(ctx, ctx.storage, name, { from: ['JOB_STATE_CREATING'], to: 'JOB_STATE_VALIDATING' });
    let plan: JobPlan | undefined;
    if (job && ['JOB_STATE_VALIDATING', 'JOB_STATE_PENDING', 'JOB_STATE_RE_QUEUEING', ...runningStates, 'JOB_STATE_WRITING_RESULTS'].includes(job.state ?? 'JOB_STATE_UNSPECIFIED')) {
      try {
        plan = await this.plan(ctx, job, run);
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        await this.stop(ctx, name, 'JOB_STATE_FAILED', error.code, error.message);
        job = await readRftJob(ctx, ctx.storage.resources, name);
      }
    }
    // The job's MCP tools are listed once per attempt, before capacity is sought (a server that cannot be listed fails the job).
    let tools: RolloutTools | undefined;
    if (plan?.mcpServer !== undefined && ['JOB_STATE_VALIDATING', 'JOB_STATE_PENDING', 'JOB_STATE_RE_QUEUEING', ...runningStates].includes(job?.state ?? 'JOB_STATE_UNSPECIFIED')) {
      tools = await this.openTools(ctx, name, plan.mcpServer, positive(plan.job.maxConcurrentRollouts) ?? rolloutDefaults.maxConcurrentRollouts);
      if (!tools) {
        plan = undefined;
        job = await readRftJob(ctx, ctx.storage.resources, name);
      }
    }
    try {
      job = await this.run(ctx, name, job, run, plan, tools);
    } finally {
      await tools?.close().catch(() => undefined);
    }
    if (!job) return this.forget(ctx, name);
    if (plan && job.state === 'JOB_STATE_WRITING_RESULTS') await this.finish(ctx, plan);
    if (job.state === 'JOB_STATE_CANCELLING') await this.stop(ctx, name, 'JOB_STATE_CANCELLED');
  }

  /**
   * Lists the tools of the job's MCP server (through the Responses API's MCP tool provider). Undefined when
   * it cannot: the job was failed with the reason (no MCP provider installed, address refused, server not
   * reachable or not listing); CANCELLED or a lost lease is thrown.
   */
  private async openTools(ctx: QueueJobContext, name: string, url: string, concurrency: number): Promise<RolloutTools | undefined> {
    const provider = mcpProvider(ctx.resolver.resolveAll(responseToolProvidersToken));
    if (!provider) {
      await this.stop(ctx, name, 'JOB_STATE_FAILED', Code.FAILED_PRECONDITION, 'mcpServer is set but this gateway runs no MCP tools (install the mcpTools() plugin of @berth/plugin-tools-mcp)');
      return undefined;
    }
    try {
      // The connection lives as long as this attempt; each exchange with the server listens to its signal.
      const signal = AbortSignal.any([ctx.signal]);
      setMaxListeners(4 * concurrency + 20, signal);
      return await openMcpTools({ requestId: ctx.requestId, principal: ctx.principal, signal }, provider, url);
    } catch (error) {
      if (ctx.signal.aborted || !isGatewayError(error) || error.code === Code.CANCELLED) throw error;
      await this.stop(ctx, name, 'JOB_STATE_FAILED', error.code, error.message);
      return undefined;
    }
  }

  /** VALIDATING → PENDING → RUNNING (⇄ IDLE) → WRITING_RESULTS, from wherever the job stands; answers the job as it then stands. */
  private async run(
    ctx: QueueJobContext, name: string, current: ReinforcementFineTuningJob | undefined, run: RftRunRecord, plan: JobPlan | undefined, tools: RolloutTools | undefined,
  ): Promise<ReinforcementFineTuningJob | undefined> {
    let job = current;
    if (job?.state === 'JOB_STATE_VALIDATING' && plan) {
      const total = plan.rows.train.length * plan.epochs * plan.sampling.candidates;
      job = await transitionRftJob(ctx, ctx.storage, name, {
        from: ['JOB_STATE_VALIDATING'], to: 'JOB_STATE_PENDING', change: (next) => {
          next.jobProgress = { ...next.jobProgress, totalInputRequests: total, percent: next.jobProgress?.percent ?? 0, epoch: run.epoch + 1 };
        },
      });
    }
    if (plan && (job?.state === 'JOB_STATE_PENDING' || job?.state === 'JOB_STATE_RE_QUEUEING')) {
      if (this.clients.current === undefined) throw new GatewayError(Code.UNAVAILABLE, 'this gateway instance serves no inference to run fine-tuning jobs', { reason: 'NO_RUNNER' });
      job = await this.awaitCapacity(ctx, job, plan);
      if (job?.state === 'JOB_STATE_PENDING' || job?.state === 'JOB_STATE_RE_QUEUEING') {
        job = await transitionRftJob(ctx, ctx.storage, name, { from: ['JOB_STATE_PENDING', 'JOB_STATE_RE_QUEUEING'], to: 'JOB_STATE_RUNNING' });
      }
    }
    if (plan && runningStates.includes(job?.state ?? 'JOB_STATE_UNSPECIFIED')) job = await this.train(ctx, plan, tools);
    return job;
  }

  /**
   * VALIDATING (and every later attempt): the trainer is installed; the datasets are READY and of the RL
   * format; the evaluator is ACTIVE (waited for while BUILDING); the base model allows RL at the rank;
   * the inference parameters parse. A {@link Refusal} says why the job cannot run.
   */
  private async plan(ctx: QueueJobContext, job: ReinforcementFineTuningJob, run: RftRunRecord): Promise<JobPlan | undefined> {
    const name = job.name ?? '';
    const config = job.trainingConfig ?? {};
    const loraRank = config.loraRank ?? loraRankDefault;
    let baseModel = config.baseModel ?? '';
    const warmStartFrom = config.warmStartFrom ?? '';
    if (warmStartFrom !== '') {
      const addon = (await ctx.storage.resources.get(ctx, warmStartFrom))?.data as Model | undefined;
      if (addon?.state !== 'READY') throw new Refusal(Code.FAILED_PRECONDITION, `trainingConfig.warmStartFrom ${warmStartFrom} is ${addon ? addon.state ?? 'STATE_UNSPECIFIED' : 'gone'}; it must be READY`);
      baseModel = addon.peftDetails?.baseModel ?? '';
    }
    const base = (await ctx.storage.resources.get(ctx, baseModel))?.data as Model | undefined;
    if (!base) throw new Refusal(Code.FAILED_PRECONDITION, `base model ${baseModel} no longer exists`);
    try {
      assertRlTunable(base, loraRank);
    } catch (error) {
      throw new Refusal(Code.FAILED_PRECONDITION, (error as Error).message);
    }
    let sampling: RolloutSampling;
    try {
      sampling = rolloutSampling(job.inferenceParameters);
    } catch (error) {
      throw new Refusal(Code.INVALID_ARGUMENT, (error as Error).message);
    }
    const training = await this.rlRows(ctx, job.dataset ?? '', 'dataset');
    const evaluationDataset = job.evaluationDataset ?? '';
    const evaluation = evaluationDataset !== '' ? await this.rlRows(ctx, evaluationDataset, 'evaluationDataset') : undefined;
    const rows = splitRows(training, { carveout: job.evalAutoCarveout === true, ...(evaluation ? { evaluation } : {}) });
    if (rows.train.length === 0) throw new Refusal(Code.FAILED_PRECONDITION, `dataset ${job.dataset ?? ''} leaves no training rows`);
    if (!this.trainer(ctx)) throw new Refusal(Code.FAILED_PRECONDITION, 'no trainer is installed on this gateway (trainerToken is not bound)');
    if (!ctx.resolver.isBound(evaluatorRunnerToken)) throw new Refusal(Code.FAILED_PRECONDITION, 'no evaluator runner is installed on this gateway');
    const evaluator = await this.activeEvaluator(ctx, name, job.evaluator ?? '', run);
    if (!evaluator) return undefined;
    const epochs = config.epochs !== undefined && config.epochs > 0 ? config.epochs : 1;
    return {
      job, rows, ranges: chunkRanges(rows, job.chunkSize), epochs, baseModel, ...(warmStartFrom !== '' ? { warmStartFrom } : {}), evaluator, sampling,
      ...(job.mcpServer !== undefined && job.mcpServer !== '' ? { mcpServer: job.mcpServer } : {}),
      hyperparameters: {
        learningRate: config.learningRate ?? defaultLearningRate,
        loraRank,
        lossMethod: job.lossConfig?.method === undefined || job.lossConfig.method === 'METHOD_UNSPECIFIED' ? 'GRPO' : job.lossConfig.method,
        ...(job.lossConfig?.klBeta !== undefined ? { klBeta: job.lossConfig.klBeta } : {}),
        temperature: sampling.temperature,
        maxOutputTokens: sampling.maxOutputTokens,
        ...optionalHyperparameters(config),
      },
      ...trainerSettings(job),
    };
  }

  private async rlRows(ctx: QueueJobContext, dataset: string, field: string): Promise<RlRow[]> {
    const record = (await ctx.storage.resources.get(ctx, dataset))?.data as Dataset | undefined;
    if (!record) throw new Refusal(Code.FAILED_PRECONDITION, `${field} ${dataset} no longer exists`);
    if (record.state !== 'READY') throw new Refusal(Code.FAILED_PRECONDITION, `${field} ${dataset} is ${record.state ?? 'STATE_UNSPECIFIED'}; it must be READY`);
    if (record.format !== undefined && record.format !== 'RL' && record.format !== 'FORMAT_UNSPECIFIED') {
      throw new Refusal(Code.FAILED_PRECONDITION, `${field} ${dataset} has format ${record.format}; reinforcement fine-tuning takes RL datasets (rows of "messages" plus ground-truth fields)`);
    }
    try {
      const rows = await readRlRows(ctx, ctx.storage, dataset);
      if (rows.length === 0) throw new Refusal(Code.FAILED_PRECONDITION, `${field} ${dataset} has no rows`);
      return rows;
    } catch (error) {
      if (error instanceof RlRowProblem) throw new Refusal(Code.INVALID_ARGUMENT, `${field} ${dataset} is not of the RL format: ${error.message}`);
      throw error;
    }
  }

  /** The job's evaluator once ACTIVE (undefined when the job stopped meanwhile); a Refusal when it is gone or its build failed. */
  private async activeEvaluator(ctx: QueueJobContext, name: string, evaluatorName: string, run: RftRunRecord): Promise<EvaluatorSpec | undefined> {
    const { stop, end } = this.stops.open(ctx);
    try {
      for (;;) {
        const evaluator = (await ctx.storage.resources.get(this.asCreator(ctx, run), evaluatorName))?.data as Evaluator | undefined;
        if (!evaluator) throw new Refusal(Code.FAILED_PRECONDITION, `evaluator ${evaluatorName} no longer exists`);
        if (evaluator.state === 'ACTIVE') return evaluator as EvaluatorSpec;
        if (evaluator.state === 'BUILD_FAILED') {
          throw new Refusal(Code.FAILED_PRECONDITION, `evaluator ${evaluatorName} failed to build: ${evaluator.status?.message ?? 'BUILD_FAILED'}`);
        }
        const job = await readRftJob(ctx, ctx.storage.resources, name);
        if (!job || job.state === 'JOB_STATE_CANCELLING') return undefined;
        if (stop.signal.aborted) await this.stopped(ctx, name, stop.signal);
        await sleepUnlessAborted(this.options.pollMs ?? 500, stop.signal);
      }
    } finally {
      end();
    }
  }

  /** The job stopped under this worker: cancelled or deleted (go on finishing), or the lease lost / handed over (stop). */
  private async stopped(ctx: QueueJobContext, name: string, stop: AbortSignal): Promise<ReinforcementFineTuningJob | undefined> {
    if (ctx.signal.aborted) throw new GatewayError(Code.ABORTED, 'the worker lost the fine-tuning job', { reason: 'STALE_ATTEMPT' });
    this.stops.throwIfHandedOver(stop);
    return readRftJob(ctx, ctx.storage.resources, name);
  }

  /** PENDING: a deployment of the base model that enables add-ons, with a ready replica. */
  private async awaitCapacity(ctx: QueueJobContext, job: ReinforcementFineTuningJob, plan: JobPlan): Promise<ReinforcementFineTuningJob | undefined> {
    const name = job.name ?? '';
    const run = await readRftRun(ctx, ctx.storage.resources, name);
    if (!run) throw new Error(`${name} has no run record`);
    const capacity = this.capacity;
    if (!capacity) {
      try {
        const target = await this.directory(ctx).resolve(this.asCreator(ctx, run), plan.baseModel);
        await updateRftRun(ctx, ctx.storage, name, { deployment: target.deployment });
      } catch (error) {
        if (!isGatewayError(error) || transientCodes.has(error.code)) throw error;
        await this.stop(ctx, name, 'JOB_STATE_FAILED', error.code, `base model ${plan.baseModel} cannot serve the rollouts: ${error.message}`);
      }
      return readRftJob(ctx, ctx.storage.resources, name);
    }
    let deployment: string;
    try {
      const asCreator = this.asCreator(ctx, run);
      const chosen = await capacity.provide(ctx, (model) => this.directory(ctx).resolve(asCreator, model), { name, model: plan.baseModel }, false, { addons: true });
      deployment = chosen.deployment;
      if (!(await updateRftRun(ctx, ctx.storage, name, { deployment, ...(chosen.temporary ? { temporaryDeployment: deployment } : {}) }))) {
        return readRftJob(ctx, ctx.storage.resources, name);
      }
    } catch (error) {
      if (!isGatewayError(error) || transientCodes.has(error.code)) throw error;
      await this.stop(ctx, name, 'JOB_STATE_FAILED', error.code, `base model ${plan.baseModel} cannot get capacity: ${error.message}`);
      return readRftJob(ctx, ctx.storage.resources, name);
    }
    return this.waitReady(ctx, name, deployment, ['JOB_STATE_PENDING', 'JOB_STATE_RE_QUEUEING']);
  }

  /** Waits until `deployment` has a ready replica while the job stays in `states`; answers the job as it then stands. */
  private async waitReady(ctx: QueueJobContext, name: string, deployment: string, states: readonly JobState[]): Promise<ReinforcementFineTuningJob | undefined> {
    const capacity = this.capacity;
    const { stop, end } = this.stops.open(ctx);
    try {
      for (;;) {
        const current = await readRftJob(ctx, ctx.storage.resources, name);
        if (!states.includes(current?.state ?? 'JOB_STATE_UNSPECIFIED')) return current;
        if (stop.signal.aborted) return this.stopped(ctx, name, stop.signal);
        if (!capacity) return current;
        try {
          if (await capacity.ready(ctx, deployment)) return current;
        } catch (error) {
          if (!isGatewayError(error) || transientCodes.has(error.code)) throw error;
          await this.stop(ctx, name, 'JOB_STATE_FAILED', error.code, `no capacity for the rollouts: ${error.message}`);
          return readRftJob(ctx, ctx.storage.resources, name);
        }
        await sleepUnlessAborted(this.options.pollMs ?? 500, stop.signal);
      }
    } finally {
      end();
    }
  }

  /** RUNNING: chunk after chunk from the run record's position, each one training step, until the epochs end or the job stops. */
  private async train(ctx: QueueJobContext, plan: JobPlan, tools: RolloutTools | undefined): Promise<ReinforcementFineTuningJob | undefined> {
    const name = plan.job.name ?? '';
    const trainer = this.trainer(ctx)!;
    const evaluators = ctx.resolver.resolve(evaluatorRunnerToken);
    const { stop, end } = this.stops.open(ctx);
    const poll = setInterval(() => {
      void readRftJob(ctx, ctx.storage.resources, name).then((current) => {
        if (!runningStates.includes(current?.state ?? 'JOB_STATE_UNSPECIFIED')) stop.abort();
      }, () => undefined);
    }, this.options.pollMs ?? 500);
    let keeper: ReturnType<typeof setInterval> | undefined;
    try {
      for (;;) {
        const run = await readRftRun(ctx, ctx.storage.resources, name);
        if (!run) throw new StoppedError('run record gone');
        if (keeper === undefined && run.deployment !== undefined && this.capacity !== undefined) {
          const deployment = run.deployment;
          keeper = setInterval(() => void this.capacity?.keep(ctx, deployment).catch(() => undefined), this.options.capacityKeepMs ?? 5000);
        }
        let job = await readRftJob(ctx, ctx.storage.resources, name);
        if (!job) return undefined;
        if (stop.signal.aborted || !runningStates.includes(job.state ?? 'JOB_STATE_UNSPECIFIED')) return this.stopped(ctx, name, stop.signal);
        if (run.epoch >= plan.epochs) {
          return transitionRftJob(ctx, ctx.storage, name, { from: runningStates, to: 'JOB_STATE_WRITING_RESULTS' });
        }
        // IDLE while the deployment has no ready replica (scaled down, replaced): back to RUNNING when it has.
        if (run.deployment !== undefined && this.capacity !== undefined && !(await this.capacity.ready(ctx, run.deployment))) {
          await transitionRftJob(ctx, ctx.storage, name, { from: ['JOB_STATE_RUNNING'], to: 'JOB_STATE_IDLE' });
          job = await this.waitReady(ctx, name, run.deployment, ['JOB_STATE_IDLE']);
          if (job?.state !== 'JOB_STATE_IDLE') continue;
        }
        if (job.state === 'JOB_STATE_IDLE') await transitionRftJob(ctx, ctx.storage, name, { from: ['JOB_STATE_IDLE'], to: 'JOB_STATE_RUNNING' });
        const rollCtx = this.asCreator(ctx, run, stop.signal);
        const maxConcurrentRollouts = positive(plan.job.maxConcurrentRollouts) ?? rolloutDefaults.maxConcurrentRollouts;
        setMaxListeners(4 * maxConcurrentRollouts + 20, stop.signal);
        // The policy now: the last step's checkpoint, else the warm start's add-on (read once for the rollouts and the step).
        const from = run.checkpoint ?? (plan.warmStartFrom !== undefined ? await warmStart(ctx, plan.warmStartFrom) : undefined);
        const rolloutRun = async (): Promise<RolloutRun> => ({
          client: this.client(), target: await this.policyTarget(ctx, rollCtx, plan, run, from), sampling: plan.sampling, evaluators, evaluator: plan.evaluator,
          maxConcurrentRollouts, maxConcurrentEvaluations: positive(plan.job.maxConcurrentEvaluations) ?? rolloutDefaults.maxConcurrentEvaluations,
          seedBase: `${name}\u0000${run.step}\u0000${run.chunk >= plan.ranges.length ? 'evaluation' : 'training'}`,
          ...(tools ? { tools } : {}),
        });
        try {
          if (run.chunk >= plan.ranges.length) {
            await this.endEpoch(ctx, rollCtx, plan, run, rolloutRun);
            continue;
          }
          const rollout = await rolloutRun();
          const [start, endRow] = plan.ranges[run.chunk]!;
          const { groups, counts } = await runRollouts(rollCtx, rollout, plan.rows.train.slice(start, endRow));
          const acceleratorType = await this.acceleratorType(ctx, run.deployment);
          const result = await trainer.step(rollCtx, {
            job: name, step: run.step + 1, baseModel: plan.baseModel, ...(from ? { from } : {}), groups, hyperparameters: plan.hyperparameters,
            ...(plan.tracker ? { tracker: plan.tracker } : {}), ...(plan.objectStore ? { objectStore: plan.objectStore } : {}),
            nodeCount: plan.job.nodeCount ?? 1, ...(acceleratorType ? { acceleratorType } : {}), signal: stop.signal,
          });
          await this.commitStep(ctx, plan, run, result, counts, trainer.name);
        } catch (error) {
          if (stop.signal.aborted) return this.stopped(ctx, name, stop.signal);
          throw error;
        }
      }
    } finally {
      end();
      clearInterval(poll);
      if (keeper) clearInterval(keeper);
    }
  }

  private client(): ChatModelClient {
    const client = this.clients.current;
    if (!client) throw new GatewayError(Code.UNAVAILABLE, 'this gateway instance serves no inference to run fine-tuning jobs', { reason: 'NO_RUNNER' });
    return client;
  }

  private async acceleratorType(ctx: QueueJobContext, deployment: string | undefined): Promise<string | undefined> {
    if (deployment === undefined) return undefined;
    const record = (await ctx.storage.resources.get(ctx, deployment))?.data as Deployment | undefined;
    return record?.acceleratorType;
  }

  /**
   * Where the rollouts go: the base model on the job's deployment before the first step, then the latest
   * policy `checkpoint` (the last step's, or the warm start's) as an add-on deployed there (made when the run
   * record does not yet name it).
   */
  private async policyTarget(
    ctx: QueueJobContext, asCreator: RequestContext, plan: JobPlan, run: RftRunRecord, checkpoint: TrainerCheckpoint | undefined,
  ): Promise<ModelTarget> {
    const name = plan.job.name ?? '';
    let model = run.deployment !== undefined ? `${plan.baseModel}#${run.deployment}` : plan.baseModel;
    if (checkpoint && run.deployment !== undefined) {
      if (run.policyStep === checkpoint.step && run.policyModel !== undefined) {
        model = `${run.policyModel}#${run.deployment}`;
      } else {
        const served = await this.models.servePolicy(asCreator, { job: name, baseModel: plan.baseModel, checkpoint, deployment: run.deployment });
        model = served.model;
        await updateRftRun(ctx, ctx.storage, name, { policyModel: served.addon, policyStep: checkpoint.step });
      }
    }
    return this.directory(ctx).resolve(asCreator, model);
  }

  /**
   * Commits a training step: the run record moves on (checkpoint, position, rewards, accelerator time)
   * only when it still has the step this worker started from, together with the job's progress and
   * metrics. The job is updated in any state (a step the trainer applied is recorded even when a cancel
   * came meanwhile); only a deleted job is not.
   */
  private async commitStep(ctx: QueueJobContext, plan: JobPlan, run: RftRunRecord, result: TrainStepResult, counts: RolloutCounts, trainerName: string): Promise<void> {
    const name = plan.job.name ?? '';
    await ctx.storage.transaction(ctx, async (tx) => {
      const storedRun = await tx.resources.getForUpdate(ctx, run.name);
      if (!storedRun) throw new StoppedError('run record gone');
      const current = storedRun.data as unknown as RftRunRecord;
      if (current.step !== run.step) throw new GatewayError(Code.ABORTED, `step ${run.step + 1} of ${name} was committed by another attempt`, { reason: 'STALE_ATTEMPT' });
      const stored = await tx.resources.getForUpdate(ctx, name);
      if (!stored) throw new StoppedError('job gone');
      const seconds = { ...current.acceleratorSeconds };
      for (const [type, value] of Object.entries(result.acceleratorSeconds)) seconds[type] = (seconds[type] ?? 0) + value;
      const next: RftRunRecord = {
        ...current, step: run.step + 1, chunk: run.chunk + 1, checkpoint: result.checkpoint, lastStepMetrics: { ...result.metrics },
        epochRewardSum: current.epochRewardSum + counts.rewardSum, epochRewardCount: current.epochRewardCount + counts.scored, acceleratorSeconds: seconds,
        ...(plan.mcpServer !== undefined ? {
          toolCalls: (current.toolCalls ?? 0) + counts.toolCalls, failedToolCalls: (current.failedToolCalls ?? 0) + counts.failedToolCalls,
        } : {}),
      };
      const job = structuredClone(stored.data) as ReinforcementFineTuningJob;
      job.jobProgress = addRollouts(job.jobProgress, counts, next.epoch + 1);
      job.outputMetrics = outputMetrics(next, trainerName, plan.epochs);
      job.outputStats = statsOf(job, next);
      job.updateTime = new Date().toISOString();
      await tx.resources.update(ctx, name, job as JsonObject, stored.etag);
      await tx.resources.update(ctx, run.name, next as unknown as JsonObject, storedRun.etag);
    });
  }

  /**
   * The end of an epoch: the evaluation set is sampled and scored under the current policy (no training),
   * the epoch's mean rewards are recorded, and the early stopping rule is applied.
   */
  private async endEpoch(
    ctx: QueueJobContext, asCreator: RequestContext, plan: JobPlan, run: RftRunRecord, rollout: () => Promise<RolloutRun>,
  ): Promise<void> {
    const name = plan.job.name ?? '';
    let evaluation: number | undefined;
    if (plan.rows.evaluation.length > 0) {
      const { counts } = await runRollouts(asCreator, await rollout(), plan.rows.evaluation);
      if (counts.scored > 0) evaluation = counts.rewardSum / counts.scored;
    }
    await ctx.storage.transaction(ctx, async (tx) => {
      const storedRun = await tx.resources.getForUpdate(ctx, run.name);
      if (!storedRun) throw new StoppedError('run record gone');
      const current = storedRun.data as unknown as RftRunRecord;
      if (current.epoch !== run.epoch || current.chunk !== run.chunk) throw new GatewayError(Code.ABORTED, `epoch ${run.epoch + 1} of ${name} was ended by another attempt`, { reason: 'STALE_ATTEMPT' });
      const train = current.epochRewardCount > 0 ? current.epochRewardSum / current.epochRewardCount : undefined;
      const epochs = [...current.epochs, { epoch: current.epoch, ...(train !== undefined ? { train } : {}), ...(evaluation !== undefined ? { evaluation } : {}) }];
      const next: RftRunRecord = { ...current, epoch: current.epoch + 1, chunk: 0, epochRewardSum: 0, epochRewardCount: 0, epochs };
      const plateau = next.epoch < plan.epochs && rewardPlateaued(epochs);
      if (plateau) next.earlyStopped = true;
      await tx.resources.update(ctx, run.name, next as unknown as JsonObject, storedRun.etag);
      const stored = await tx.resources.getForUpdate(ctx, name);
      if (!stored) throw new StoppedError('job gone');
      const job = structuredClone(stored.data) as ReinforcementFineTuningJob;
      job.outputMetrics = outputMetrics(next, this.trainer(ctx)?.name ?? '', plan.epochs);
      job.jobProgress = { ...job.jobProgress, epoch: Math.min(next.epoch + 1, plan.epochs) };
      if (plateau && job.state === 'JOB_STATE_RUNNING') job.state = 'JOB_STATE_WRITING_RESULTS';
      job.updateTime = new Date().toISOString();
      await tx.resources.update(ctx, name, job as JsonObject, stored.etag);
    });
  }

  /**
   * WRITING_RESULTS: the final checkpoint becomes the output model (a READY HUB_PEFT_ADDON), the policy
   * add-ons and the capacity are released, the trainer's checkpoints discarded, then the job is COMPLETED
   * (EARLY_STOPPED when the plateau rule stopped it) with its accelerator time. Every part is idempotent.
   */
  private async finish(ctx: QueueJobContext, plan: JobPlan): Promise<void> {
    const name = plan.job.name ?? '';
    const run = await readRftRun(ctx, ctx.storage.resources, name);
    if (!run) throw new Error(`${name} has no run record`);
    if (!run.checkpoint) {
      await this.stop(ctx, name, 'JOB_STATE_FAILED', Code.FAILED_PRECONDITION, 'the job ended without a training step');
      return;
    }
    const asCreator = this.asCreator(ctx, run);
    const output = await this.outputModelName(ctx, plan.job);
    await this.models.createOutputModel(asCreator, output, { job: name, baseModel: plan.baseModel, checkpoint: run.checkpoint });
    await this.release(ctx, name, run);
    await this.trainer(ctx)?.discard(ctx, name);
    await ctx.commit(async (tx) => {
      await moveRftJobIn(ctx, tx, name, {
        from: ['JOB_STATE_WRITING_RESULTS'], to: run.earlyStopped === true ? 'JOB_STATE_EARLY_STOPPED' : 'JOB_STATE_COMPLETED', change: (job) => {
          job.trainingConfig = { ...job.trainingConfig, outputModel: output };
          job.acceleratorSeconds = acceleratorSecondsField(run.acceleratorSeconds);
          job.completedTime = new Date().toISOString();
          job.jobProgress = { ...job.jobProgress, percent: 100 };
          job.outputStats = statsOf(job, run);
          if (run.earlyStopped === true) {
            job.status = { code: 'OK', message: `stopped early: the mean reward did not rise over the last epochs (${run.epochs.length} of ${plan.epochs} run)` };
          } else {
            delete job.status;
          }
        },
      });
    });
  }

  /** The output model's name: `trainingConfig.outputModel`, else `accounts/{a}/models/{job id}` (or a name of the job's own when that is taken). */
  private async outputModelName(ctx: QueueJobContext, job: ReinforcementFineTuningJob): Promise<string> {
    const given = job.trainingConfig?.outputModel ?? '';
    if (given !== '') return given;
    const name = job.name ?? '';
    const [, accountId, , id] = name.split('/');
    const preferred = `accounts/${accountId ?? ''}/models/${id ?? ''}`;
    const existing = (await ctx.storage.resources.get(ctx, preferred))?.data as Model | undefined;
    return !existing || existing.fineTuningJob === name ? preferred : `accounts/${accountId ?? ''}/models/${policyIdPrefix(name)}output`;
  }

  /** Lets go of what the job holds while it runs: the policy add-ons and the capacity. */
  private async release(ctx: QueueJobContext, name: string, run: RftRunRecord | undefined): Promise<void> {
    await this.models.retirePolicies(run ? this.asCreator(ctx, run) : ctx, name);
    await this.capacity?.release(ctx, name);
    if (run?.policyModel !== undefined) await updateRftRun(ctx, ctx.storage, name, {}, ['policyModel', 'policyStep']);
  }

  /**
   * Ends the job's work in `to` (FAILED, PAUSED, CANCELLED): releases what it holds, records
   * `acceleratorSeconds` and `completedTime`. The checkpoint stays for `:resume`.
   */
  private async stop(ctx: QueueJobContext, name: string, to: JobState, code?: Code, message?: string): Promise<void> {
    const run = await readRftRun(ctx, ctx.storage.resources, name);
    await this.release(ctx, name, run);
    const from: readonly JobState[] = to === 'JOB_STATE_CANCELLED' ? ['JOB_STATE_CANCELLING'] : workingStates;
    await transitionRftJob(ctx, ctx.storage, name, {
      from, to, change: (job) => {
        if (code !== undefined) job.status = { code, message: message ?? '' };
        if (run) job.acceleratorSeconds = acceleratorSecondsField(run.acceleratorSeconds);
        if (to !== 'JOB_STATE_PAUSED') job.completedTime = new Date().toISOString();
      },
    });
  }

  /** The job is gone (deleted): its policy add-ons, capacity, checkpoints and run record go too. */
  private async forget(ctx: QueueJobContext, name: string): Promise<void> {
    const run = await readRftRun(ctx, ctx.storage.resources, name);
    await this.models.retirePolicies(run ? this.asCreator(ctx, run) : ctx, name);
    await this.capacity?.release(ctx, name);
    await this.trainer(ctx)?.discard(ctx, name);
    await ctx.storage.resources.delete(ctx, rftRunRecordName(name)).catch(() => undefined);
  }
}

/** A warm start's add-on as the first step's checkpoint (step 0): its stored files. */
async function warmStart(ctx: QueueJobContext, model: string): Promise<TrainerCheckpoint> {
  const files = [];
  for (const path of await listModelFiles(ctx, ctx.storage.blobs, model)) {
    const head = await ctx.storage.blobs.head(ctx, modelFileKey(model, path));
    if (head) files.push({ path, sizeBytes: head.size, sha256: head.sha256 });
  }
  return { step: 0, keyPrefix: modelFilesPrefix(model), files };
}

/**
 * The `trainingConfig` hyper-parameters a job may leave unset: those it gives, 0 counting as unset (the
 * trainer's default) for the counts; `optimizerWeightDecay` 0 is a value (no decay).
 */
function optionalHyperparameters(config: NonNullable<ReinforcementFineTuningJob['trainingConfig']>): Partial<TrainerHyperparameters> {
  const counts = {
    batchSize: positive(config.batchSize),
    batchSizeSamples: positive(config.batchSizeSamples),
    gradientAccumulationSteps: positive(config.gradientAccumulationSteps),
    learningRateWarmupSteps: positive(config.learningRateWarmupSteps),
    maxContextLength: positive(config.maxContextLength),
  };
  return {
    ...Object.fromEntries(Object.entries(counts).filter(([, value]) => value !== undefined)),
    ...(config.optimizerWeightDecay !== undefined ? { optimizerWeightDecay: config.optimizerWeightDecay } : {}),
    ...(config.jinjaTemplate !== undefined && config.jinjaTemplate !== '' ? { jinjaTemplate: config.jinjaTemplate } : {}),
  };
}

/** The job's tracker (when `trackerConfig.enabled`, with the stored apiKey) and object store, as the trainer reads them. */
function trainerSettings(job: ReinforcementFineTuningJob): { tracker?: TrainerTracker; objectStore?: TrainerObjectStore } {
  const given = (value: string | undefined) => (value !== undefined && value !== '' ? value : undefined);
  const pick = <K extends string>(source: Partial<Record<K, string>> | undefined, keys: readonly K[]): Partial<Record<K, string>> =>
    Object.fromEntries(keys.flatMap((key) => (given(source?.[key]) !== undefined ? [[key, source![key]!]] : []))) as Partial<Record<K, string>>;
  const tracker = job.trackerConfig?.enabled === true ? pick(job.trackerConfig, ['apiKey', 'project', 'entity', 'runId', 'url'] as const) : undefined;
  const objectStore = pick(job.objectStoreConfig, ['credentialsSecret', 'iamRoleArn'] as const);
  return {
    ...(tracker ? { tracker } : {}),
    ...(Object.keys(objectStore).length > 0 ? { objectStore } : {}),
  };
}

function positive(value: number | undefined): number | undefined {
  return value !== undefined && value > 0 ? value : undefined;
}

/** The job's progress with a step's rollouts added (percent of the rollouts the job will run). */
function addRollouts(progress: ReinforcementFineTuningJob['jobProgress'], counts: RolloutCounts, epoch: number): NonNullable<ReinforcementFineTuningJob['jobProgress']> {
  const p = progress ?? {};
  const total = p.totalInputRequests ?? 0;
  const processed = (p.totalProcessedRequests ?? 0) + counts.rollouts;
  return {
    ...p,
    epoch,
    totalProcessedRequests: processed,
    successfullyProcessedRequests: (p.successfullyProcessedRequests ?? 0) + counts.scored,
    failedRequests: (p.failedRequests ?? 0) + counts.failed,
    inputTokens: (p.inputTokens ?? 0) + counts.inputTokens,
    outputTokens: (p.outputTokens ?? 0) + counts.outputTokens,
    percent: total === 0 ? 0 : Math.min(100, Math.round((processed / total) * 10000) / 100),
  };
}

function statsOf(job: ReinforcementFineTuningJob, run: RftRunRecord): string {
  const p = job.jobProgress ?? {};
  return outputStats({
    processed: p.totalProcessedRequests ?? 0, scored: p.successfullyProcessedRequests ?? 0, failed: p.failedRequests ?? 0,
    inputTokens: p.inputTokens ?? 0, outputTokens: p.outputTokens ?? 0,
  }, run);
}
