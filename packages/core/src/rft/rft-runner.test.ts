import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../contracts/json.js';
import { systemContext, type RequestContext } from '../contracts/request-context.js';
import { Code, GatewayError } from '../errors/index.js';
import type { Resolver } from '../kernel/container.js';
import { evaluatorRunnerToken, servingDirectoryToken, trainerToken } from '../kernel/tokens.js';
import type { Token } from '../kernel/token.js';
import { systemClock } from '../ports/clock.js';
import type { EvaluationOutcome, EvaluatorRunner } from '../ports/evaluator-runner.js';
import { randomIdGenerator } from '../ports/id-generator.js';
import type { ModelTarget, ServingDirectory } from '../ports/serving-directory.js';
import type { Trainer, TrainStepInput, TrainStepResult } from '../ports/trainer.js';
import { ResourceEnvironment } from '../resources/common/resource-environment.js';
import { modelFileKey, modelFilesPrefix } from '../resources/models/model-files.js';
import { GatewaySecrets } from '../resources/common/secrets.js';
import { readRftRun } from '../resources/reinforcement-fine-tuning-jobs/reinforcement-fine-tuning-job-runs.js';
import type { ReinforcementFineTuningJob } from '../resources/reinforcement-fine-tuning-jobs/reinforcement-fine-tuning-job-schema.js';
import { ReinforcementFineTuningJobService } from '../resources/reinforcement-fine-tuning-jobs/reinforcement-fine-tuning-job-service.js';
import type { ChatCompletionCall, ChatCompletionOutcome, ChatModelClient, ChatStreamOutcome } from '../responses/model-client.js';
import { MemoryStorage } from '../storage-memory/index.js';
import { waitFor } from '../testing/queue-worker-scenarios.js';
import { QueueWorkerPool } from '../workers/queue-worker-pool.js';
import { BatchCapacity, type JobCapacity } from '../batch/batch-capacity.js';
import type { AddonFromCheckpoint, RftModels } from './rft-models.js';
import { RftJobRunner } from './rft-runner.js';

const ctx: RequestContext = {
  requestId: 't', principal: { userName: 'accounts/acme/users/admin', accountId: 'acme', role: 'admin', email: 'admin@example.com' },
};
const base = 'accounts/acme/models/base';
const deployment = 'accounts/acme/deployments/d';

/**
 * A policy that gets better with training: under the add-on of step k it answers "42" (the right answer)
 * in min(k + 1, 4) of every 4 samples; the base model in 1 of 4. With `frozen` it never improves.
 */
class PolicyClient implements ChatModelClient {
  readonly calls = new Map<string, number>();
  frozen = false;
  async complete(callCtx: RequestContext, call: ChatCompletionCall): Promise<ChatCompletionOutcome> {
    if (callCtx.signal?.aborted) throw new GatewayError(Code.CANCELLED, 'cancelled');
    const step = /-s(\d+)$/.exec(call.target.model)?.[1];
    const level = this.frozen || step === undefined ? 1 : Math.min(Number(step) + 1, 4);
    const seen = this.calls.get(call.target.model) ?? 0;
    this.calls.set(call.target.model, seen + 1);
    const content = seen % 4 < level ? '42' : 'no idea';
    return {
      ok: true,
      completion: { object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 2 } },
    };
  }

  async stream(): Promise<ChatStreamOutcome> {
    throw new Error('not used');
  }
}

/** Exact match against `ground_truth`; a row whose ground truth is "boom" fails its evaluations. */
const evaluators: EvaluatorRunner = {
  build: async () => ({ ok: true }),
  score: async () => {
    throw new Error('not used');
  },
  scoreMany: async (_ctx, _evaluator, requests) => requests.map((r): EvaluationOutcome => (r.row.ground_truth === 'boom'
    ? { status: 'failed', code: 'THREW', reason: 'boom', details: { criteria: [], durationMs: 0 } }
    : { status: 'scored', score: r.answer.text === r.row.ground_truth ? 1 : 0, details: { criteria: [], durationMs: 0 } })),
  close: async () => undefined,
};

/**
 * A trainer double: a step is "applied" once per (job, step) (a repeat answers the first result), its
 * checkpoint names the step, and it uses 2 accelerator seconds. `gate` holds a step until opened;
 * `crashAfter` makes the first call of that step throw once the step was applied (a worker dying after
 * the trainer answered, before the commit).
 */
class TestTrainer implements Trainer {
  readonly name = 'test';
  readonly applied: TrainStepInput[] = [];
  readonly calls: number[] = [];
  readonly discarded: string[] = [];
  private readonly results = new Map<string, TrainStepResult>();
  gate?: { step: number; opened: Promise<void>; open: () => void; reached: boolean };
  crashAfter?: number;

  holdAt(step: number): void {
    let open = () => {};
    const opened = new Promise<void>((resolve) => (open = resolve));
    this.gate = { step, opened, open, reached: false };
  }

  async step(_ctx: RequestContext, input: TrainStepInput): Promise<TrainStepResult> {
    this.calls.push(input.step);
    if (this.gate?.step === input.step) {
      this.gate.reached = true;
      await Promise.race([this.gate.opened, new Promise<void>((resolve) => input.signal?.addEventListener('abort', () => resolve(), { once: true }))]);
      if (input.signal?.aborted) throw new GatewayError(Code.CANCELLED, 'stopped');
    }
    const key = `${input.job}#${input.step}`;
    let result = this.results.get(key);
    if (!result) {
      this.applied.push(input);
      result = {
        checkpoint: { step: input.step, keyPrefix: `ckpt/${input.step}/`, files: [{ path: 'adapter_model.safetensors', sizeBytes: 8, sha256: String(input.step).repeat(64).slice(0, 64) }] },
        metrics: { loss: 1 / input.step },
        acceleratorSeconds: { GPUX_H100_80GB: 2 },
      };
      this.results.set(key, result);
      if (this.crashAfter === input.step) {
        this.crashAfter = undefined;
        throw new Error('the worker died after the step');
      }
    }
    return result;
  }

  async discard(_ctx: RequestContext, job: string): Promise<void> {
    this.discarded.push(job);
  }
}

/** Checkpoints as models, in storage: the policy add-on of each step, and the output model. */
class TestModels implements RftModels {
  readonly served: number[] = [];
  constructor(private readonly storage: MemoryStorage) {}
  async servePolicy(_ctx: RequestContext, input: AddonFromCheckpoint & { deployment: string }): Promise<{ model: string; addon: string }> {
    this.served.push(input.checkpoint.step);
    const addon = `accounts/acme/models/policy-s${input.checkpoint.step}`;
    return { model: `${addon}#${input.deployment}`, addon };
  }

  async retirePolicies(): Promise<void> {}

  async createOutputModel(_ctx: RequestContext, name: string, input: AddonFromCheckpoint): Promise<void> {
    if (await this.storage.resources.get(systemContext(), name)) return;
    await this.storage.resources.create(systemContext(), name, {
      name, kind: 'HUB_PEFT_ADDON', state: 'READY', fineTuningJob: input.job, peftDetails: { baseModel: input.baseModel, r: 8, targetModules: ['q_proj'] },
      checkpointStep: input.checkpoint.step,
    });
  }
}

/**
 * Capacity whose one deployment has a ready replica while `up` is true: `ready` answers it, and records
 * each question. Provides the deployment at once.
 */
class SwitchableCapacity extends BatchCapacity {
  up = true;
  readonly released: string[] = [];
  constructor() {
    super(undefined as never, undefined as never);
  }

  override async provide(): Promise<JobCapacity> {
    return { deployment, temporary: false };
  }

  override async ready(): Promise<boolean> {
    return this.up;
  }

  override async keep(): Promise<void> {}

  override async release(_ctx: RequestContext, jobName: string): Promise<void> {
    this.released.push(jobName);
  }
}

const directory: ServingDirectory = {
  async resolve(_ctx, name): Promise<ModelTarget> {
    const [model, dep] = name.split('#');
    return { accountId: 'acme', model: model ?? name, deployment: dep ?? deployment };
  },
  async acquire() {
    throw new Error('not used');
  },
};

let storage: MemoryStorage;
let jobs: ReinforcementFineTuningJobService;
let trainer: TestTrainer;
let client: PolicyClient;
let models: TestModels;
let withTrainer = true;
const pools: QueueWorkerPool[] = [];

function resolver(): Resolver {
  const bound = new Map<Token<unknown>, unknown>([
    [servingDirectoryToken as Token<unknown>, directory],
    [evaluatorRunnerToken as Token<unknown>, evaluators],
    ...(withTrainer ? [[trainerToken as Token<unknown>, trainer] as const] : []),
  ]);
  return {
    resolve<T>(token: Token<T>): T {
      if (!bound.has(token)) throw new Error(`unexpected token ${token.description}`);
      return bound.get(token) as T;
    },
    resolveAll: () => [],
    isBound: (token) => bound.has(token),
  };
}

function startWorkers(capacity?: BatchCapacity): RftJobRunner {
  const runner = new RftJobRunner({ pollMs: 10, leaseMs: 300, backoff: { initialMs: 10, maxMs: 20 } }, models, capacity);
  runner.attach(client);
  const pool = new QueueWorkerPool({ storage, handlers: [runner.handler], pollIntervalMs: 10, resolver: resolver(), stopTimeoutMs: 50 });
  pool.start();
  pools.push(pool);
  return runner;
}

async function dataset(id: string, rows: JsonObject[], format = 'RL'): Promise<string> {
  const name = `accounts/acme/datasets/${id}`;
  await storage.resources.create(systemContext(), name, { name, state: 'READY', format });
  await storage.blobs.put(systemContext(), `datasets/acme/datasets/${id}/rows.jsonl`, Buffer.from(rows.map((r) => `${JSON.stringify(r)}\n`).join('')), 'application/jsonl');
  return name;
}

function prompts(count: number, truth = '42'): JsonObject[] {
  return Array.from({ length: count }, (_, i) => ({ messages: [{ role: 'user', content: `question ${i}` }], ground_truth: truth }));
}

async function job(name: string): Promise<ReinforcementFineTuningJob> {
  return jobs.get(ctx, name);
}

async function until(name: string, states: string[], timeoutMs = 10_000): Promise<ReinforcementFineTuningJob> {
  await waitFor(async () => states.includes((await job(name)).state ?? ''), timeoutMs, `${name} in ${states.join('/')}`);
  return job(name);
}

async function create(id: string, body: JsonObject): Promise<string> {
  const created = await jobs.create(ctx, 'acme', {
    evaluator: 'accounts/acme/evaluators/judge', trainingConfig: { baseModel: base }, inferenceParameters: { responseCandidatesCount: 4 }, ...body,
  }, id);
  return created.name ?? '';
}

interface Metrics {
  trainer: string;
  steps: number;
  rewardCurve: { epoch: number; trainReward?: number; evaluationReward?: number }[];
  lastStep?: Record<string, number>;
}

beforeEach(async () => {
  storage = new MemoryStorage();
  const env = new ResourceEnvironment(storage, systemClock, randomIdGenerator);
  const secrets = new GatewaySecrets('test-secret');
  await secrets.load(ctx, storage.kv);
  jobs = new ReinforcementFineTuningJobService(env, secrets);
  trainer = new TestTrainer();
  client = new PolicyClient();
  models = new TestModels(storage);
  withTrainer = true;
  await storage.resources.create(systemContext(), base, { name: base, kind: 'HUB_BASE_MODEL', state: 'READY' });
  await storage.resources.create(systemContext(), 'accounts/acme/evaluators/judge', { name: 'accounts/acme/evaluators/judge', state: 'ACTIVE', criteria: [] });
});

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.stop()));
});

describe('the reinforcement fine-tuning loop', () => {
  it('runs epochs of rollouts, scores and one step per chunk to COMPLETED: reward rises, the output add-on exists, accelerator time is filled', async () => {
    const rows = [...prompts(19), { messages: [{ role: 'user', content: 'explode' }], ground_truth: 'boom' }];
    const name = await create('toy', { dataset: await dataset('toy', rows), trainingConfig: { baseModel: base, epochs: 3, outputModel: 'accounts/acme/models/tuned' } });
    startWorkers();
    const done = await until(name, ['JOB_STATE_COMPLETED', 'JOB_STATE_FAILED']);
    expect(done.state, JSON.stringify(done.status)).toBe('JOB_STATE_COMPLETED');
    // 20 rows ≤ 300: one chunk, so one step per epoch, numbered globally, each from the previous checkpoint.
    expect(trainer.applied.map((s) => [s.step, s.from?.step])).toEqual([[1, undefined], [2, 1], [3, 2]]);
    expect(trainer.applied.every((s) => s.groups.length === 20 && s.baseModel === base && s.hyperparameters.lossMethod === 'GRPO' && s.hyperparameters.loraRank === 8)).toBe(true);
    expect(trainer.applied[0]!.groups[0]!.rollouts).toHaveLength(4);
    // The failed evaluations (row "explode") take no part in the step: no reward on those rollouts.
    expect(trainer.applied[0]!.groups[19]!.rollouts.every((r) => r.reward === undefined)).toBe(true);
    // The policy is the checkpoint being trained: step 1's add-on samples epoch 2, step 2's epoch 3.
    expect(models.served).toEqual([1, 2]);
    expect(done.jobProgress).toMatchObject({ totalInputRequests: 240, totalProcessedRequests: 240, failedRequests: 12, successfullyProcessedRequests: 228, percent: 100, epoch: 3 });
    const metrics = JSON.parse(done.outputMetrics ?? '{}') as Metrics;
    expect(metrics).toMatchObject({ trainer: 'test', steps: 3, lastStep: { loss: 1 / 3 } });
    const curve = metrics.rewardCurve.map((e) => e.trainReward ?? 0);
    expect(curve).toEqual([0.25, 0.5, 0.75]);
    expect(done.trainingConfig?.outputModel).toBe('accounts/acme/models/tuned');
    expect((await storage.resources.get(ctx, 'accounts/acme/models/tuned'))?.data).toMatchObject({ state: 'READY', fineTuningJob: name, checkpointStep: 3 });
    expect(done.acceleratorSeconds).toEqual({ GPUX_H100_80GB: '6' });
    expect(typeof done.completedTime).toBe('string');
    expect(JSON.parse(done.outputStats ?? '{}')).toMatchObject({ rollouts: 240, failedRollouts: 12, trainingSteps: 3, finalTrainReward: 0.75 });
    expect(trainer.discarded).toEqual([name]);
  });

  it('a warm start trains from the add-on named: its files are step 0, the policy of the first rollouts and the first step\'s `from`', async () => {
    const warm = 'accounts/acme/models/warm';
    await storage.resources.create(systemContext(), warm, { name: warm, kind: 'HUB_PEFT_ADDON', state: 'READY', peftDetails: { baseModel: base, r: 8 } });
    await storage.blobs.put(systemContext(), modelFileKey(warm, 'adapter_model.safetensors'), Buffer.from('warm-lora'), 'application/octet-stream');
    const name = await create('warm', { dataset: await dataset('warm', prompts(8)), trainingConfig: { warmStartFrom: warm, epochs: 2 } });
    startWorkers();
    const done = await until(name, ['JOB_STATE_COMPLETED', 'JOB_STATE_FAILED']);
    expect(done.state, JSON.stringify(done.status)).toBe('JOB_STATE_COMPLETED');
    expect(trainer.applied.map((s) => [s.step, s.from?.step])).toEqual([[1, 0], [2, 1]]);
    expect(trainer.applied[0]!.baseModel).toBe(base);
    expect(trainer.applied[0]!.from).toMatchObject({ keyPrefix: modelFilesPrefix(warm), files: [{ path: 'adapter_model.safetensors', sizeBytes: 9 }] });
    // The first epoch samples the warm start, the second step 1's add-on.
    expect(models.served).toEqual([0, 1]);
  });

  it('runs a dataset of 1,000 rows in chunks of chunkSize (one step each) and one of 250 rows in a single chunk', async () => {
    const big = await create('big', { dataset: await dataset('big', prompts(1000)), chunkSize: 300, inferenceParameters: { responseCandidatesCount: 2 } });
    const small = await create('small', { dataset: await dataset('small', prompts(250)), chunkSize: 100, inferenceParameters: { responseCandidatesCount: 2 } });
    startWorkers();
    expect((await until(big, ['JOB_STATE_COMPLETED', 'JOB_STATE_FAILED'], 20_000)).state).toBe('JOB_STATE_COMPLETED');
    expect((await until(small, ['JOB_STATE_COMPLETED', 'JOB_STATE_FAILED'], 20_000)).state).toBe('JOB_STATE_COMPLETED');
    const sizes = (job: string) => trainer.applied.filter((s) => s.job === job).map((s) => [s.step, s.groups.length]);
    expect(sizes(big)).toEqual([[1, 300], [2, 300], [3, 300], [4, 100]]);
    expect(sizes(small)).toEqual([[1, 250]]);
    expect(trainer.applied.find((s) => s.job === big && s.step === 4)!.groups.map((g) => g.rowIndex)).toEqual(Array.from({ length: 100 }, (_, i) => 900 + i));
  });

  it('carves every tenth row out as the evaluation set and shows its reward per epoch', async () => {
    const name = await create('carve', { dataset: await dataset('carve', prompts(30)), evalAutoCarveout: true, trainingConfig: { baseModel: base, epochs: 2 } });
    startWorkers();
    const done = await until(name, ['JOB_STATE_COMPLETED', 'JOB_STATE_FAILED']);
    expect(done.state, JSON.stringify(done.status)).toBe('JOB_STATE_COMPLETED');
    expect(trainer.applied[0]!.groups.map((g) => g.rowIndex)).not.toContain(9);
    expect(trainer.applied[0]!.groups).toHaveLength(27);
    const metrics = JSON.parse(done.outputMetrics ?? '{}') as Metrics;
    expect(metrics.rewardCurve).toHaveLength(2);
    for (const epoch of metrics.rewardCurve) expect(typeof epoch.evaluationReward).toBe('number');
    expect(done.jobProgress?.totalInputRequests).toBe(27 * 2 * 4);
  });

  it('stops EARLY_STOPPED when the reward plateaus for 3 epochs, with the output model of its last checkpoint', async () => {
    client.frozen = true;
    const name = await create('flat', { dataset: await dataset('flat', prompts(8)), trainingConfig: { baseModel: base, epochs: 8 } });
    startWorkers();
    const done = await until(name, ['JOB_STATE_EARLY_STOPPED', 'JOB_STATE_COMPLETED', 'JOB_STATE_FAILED']);
    expect(done.state).toBe('JOB_STATE_EARLY_STOPPED');
    expect(trainer.applied).toHaveLength(4);
    expect(done.status?.message).toMatch(/stopped early/);
    expect((await storage.resources.get(ctx, done.trainingConfig?.outputModel ?? ''))?.data).toMatchObject({ fineTuningJob: name, checkpointStep: 4 });
  });

  it(':cancel stops the job at its step (CANCELLING → CANCELLED, accelerator time kept); :resume continues from the checkpoint, each step applied once', async () => {
    trainer.holdAt(2);
    const name = await create('stop', { dataset: await dataset('stop', prompts(10)), trainingConfig: { baseModel: base, epochs: 3 } });
    startWorkers();
    await waitFor(() => trainer.gate?.reached === true, 10_000, 'step 2');
    await jobs.cancel(ctx, name);
    expect((await job(name)).state).toMatch(/JOB_STATE_CANCELL(ING|ED)/);
    const cancelled = await until(name, ['JOB_STATE_CANCELLED']);
    expect(cancelled.acceleratorSeconds).toEqual({ GPUX_H100_80GB: '2' });
    expect((await readRftRun(ctx, storage.resources, name))).toMatchObject({ step: 1, checkpoint: { step: 1 } });
    trainer.gate = undefined;
    expect((await jobs.resume(ctx, name)).state).toBe('JOB_STATE_PENDING');
    const done = await until(name, ['JOB_STATE_COMPLETED', 'JOB_STATE_FAILED']);
    expect(done.state, JSON.stringify(done.status)).toBe('JOB_STATE_COMPLETED');
    expect(trainer.applied.map((s) => [s.step, s.from?.step])).toEqual([[1, undefined], [2, 1], [3, 2]]);
    expect(done.acceleratorSeconds).toEqual({ GPUX_H100_80GB: '6' });
  });

  it('a step repeated after the worker died past the trainer is applied once (the trainer answers the first checkpoint)', async () => {
    trainer.crashAfter = 2;
    const name = await create('crash', { dataset: await dataset('crash', prompts(6)), trainingConfig: { baseModel: base, epochs: 3 } });
    startWorkers();
    const done = await until(name, ['JOB_STATE_COMPLETED', 'JOB_STATE_FAILED']);
    expect(done.state, JSON.stringify(done.status)).toBe('JOB_STATE_COMPLETED');
    expect(trainer.calls.filter((s) => s === 2)).toHaveLength(2);
    expect(trainer.applied.map((s) => s.step)).toEqual([1, 2, 3]);
    expect(JSON.parse(done.outputMetrics ?? '{}')).toMatchObject({ steps: 3 });
  });

  it('fails in VALIDATING with the reason: a row not of the RL format, a dataset of another format, an evaluator whose build failed', async () => {
    const badRow = await create('bad-row', { dataset: await dataset('bad-row', [...prompts(2), { prompt: 'no messages' }]) });
    const chat = await create('chat', { dataset: await dataset('chat', prompts(2), 'CHAT') });
    await storage.resources.create(systemContext(), 'accounts/acme/evaluators/later', { name: 'accounts/acme/evaluators/later', state: 'BUILDING' });
    const broken = await create('broken', { dataset: await dataset('fine', prompts(2)), evaluator: 'accounts/acme/evaluators/later' });
    startWorkers();
    expect(await until(badRow, ['JOB_STATE_FAILED'])).toMatchObject({ status: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('row 3: has no "messages"') } });
    expect(await until(chat, ['JOB_STATE_FAILED'])).toMatchObject({ status: { code: 'FAILED_PRECONDITION', message: expect.stringContaining('format CHAT') } });
    // Waits while the evaluator builds; fails when its build fails.
    await until(broken, ['JOB_STATE_VALIDATING']);
    const later = await storage.resources.get(systemContext(), 'accounts/acme/evaluators/later');
    await storage.resources.update(systemContext(), 'accounts/acme/evaluators/later', { ...later!.data, state: 'BUILD_FAILED', status: { code: 'INVALID_ARGUMENT', message: 'SyntaxError' } }, later!.etag);
    expect(await until(broken, ['JOB_STATE_FAILED'])).toMatchObject({ status: { code: 'FAILED_PRECONDITION', message: expect.stringContaining('failed to build: SyntaxError') } });
    expect(trainer.applied).toHaveLength(0);
  });

  it('fails FAILED_PRECONDITION when no trainer is installed', async () => {
    withTrainer = false;
    const name = await create('untrained', { dataset: await dataset('untrained', prompts(2)) });
    startWorkers();
    expect(await until(name, ['JOB_STATE_FAILED'])).toMatchObject({ status: { code: 'FAILED_PRECONDITION', message: expect.stringContaining('no trainer') } });
  });

  it('passes the job\'s hyper-parameters, its tracker (with the stored API key) and object store to the trainer', async () => {
    const name = await create('settings', {
      dataset: await dataset('settings', prompts(2)),
      trainingConfig: {
        baseModel: base, learningRate: 0.003, batchSize: 1024, batchSizeSamples: 0, gradientAccumulationSteps: 2, learningRateWarmupSteps: 5,
        optimizerWeightDecay: 0.1, maxContextLength: 4096, jinjaTemplate: '{{ messages }}',
      },
      lossConfig: { method: 'DAPO', klBeta: 0.02 },
      trackerConfig: { enabled: true, apiKey: 'tracker-key-123456789', project: 'harbor', entity: '' },
      objectStoreConfig: { credentialsSecret: 'acme-bucket' },
      inferenceParameters: { responseCandidatesCount: 4, temperature: 0.7, maxOutputTokens: 32 },
    });
    expect((await job(name)).trackerConfig?.apiKey).toBe('****6789');
    startWorkers();
    expect((await until(name, ['JOB_STATE_COMPLETED', 'JOB_STATE_FAILED'])).state).toBe('JOB_STATE_COMPLETED');
    expect(trainer.applied[0]).toMatchObject({
      hyperparameters: {
        learningRate: 0.003, loraRank: 8, lossMethod: 'DAPO', klBeta: 0.02, temperature: 0.7, maxOutputTokens: 32, batchSize: 1024, gradientAccumulationSteps: 2,
        learningRateWarmupSteps: 5, optimizerWeightDecay: 0.1, maxContextLength: 4096, jinjaTemplate: '{{ messages }}',
      },
      tracker: { apiKey: 'tracker-key-123456789', project: 'harbor' },
      objectStore: { credentialsSecret: 'acme-bucket' },
    });
    // 0 is "the trainer's default", an empty string is unset.
    expect(trainer.applied[0]!.hyperparameters).not.toHaveProperty('batchSizeSamples');
    expect(trainer.applied[0]!.tracker).not.toHaveProperty('entity');
  });

  it('passes no tracker when trackerConfig is not enabled', async () => {
    const name = await create('quiet', { dataset: await dataset('quiet', prompts(2)), trackerConfig: { apiKey: 'tracker-key-123456789', project: 'harbor' } });
    startWorkers();
    expect((await until(name, ['JOB_STATE_COMPLETED', 'JOB_STATE_FAILED'])).state).toBe('JOB_STATE_COMPLETED');
    expect(trainer.applied[0]).not.toHaveProperty('tracker');
    expect(trainer.applied[0]).not.toHaveProperty('objectStore');
  });

  it('fails FAILED_PRECONDITION in VALIDATING when mcpServer is set and the gateway runs no MCP tools', async () => {
    const name = await create('tools', { dataset: await dataset('tools', prompts(2)), mcpServer: 'http://tools.example/mcp' });
    startWorkers();
    expect(await until(name, ['JOB_STATE_FAILED'])).toMatchObject({ status: { code: 'FAILED_PRECONDITION', message: expect.stringContaining('mcpTools()') } });
    expect(trainer.calls).toHaveLength(0);
    expect(client.calls.size).toBe(0);
  });

  it('waits IDLE between chunks while its deployment has no ready replica, and runs on from the next chunk when it has one again', async () => {
    const capacity = new SwitchableCapacity();
    trainer.holdAt(1);
    const name = await create('idle', { dataset: await dataset('idle', prompts(4)), trainingConfig: { baseModel: base, epochs: 3 } });
    startWorkers(capacity);
    await waitFor(() => trainer.gate?.reached === true, 10_000, 'step 1');
    expect((await job(name)).state).toBe('JOB_STATE_RUNNING');
    // The replica goes away while step 1 trains: the step commits, then the job waits for capacity.
    capacity.up = false;
    trainer.gate!.open();
    const idle = await until(name, ['JOB_STATE_IDLE', 'JOB_STATE_COMPLETED', 'JOB_STATE_FAILED']);
    expect(idle.state).toBe('JOB_STATE_IDLE');
    expect(JSON.parse(idle.outputMetrics ?? '{}')).toMatchObject({ steps: 1 });
    const sampled = [...client.calls.values()].reduce((a, b) => a + b, 0);
    // Nothing is sampled or trained while IDLE (several polls of the capacity go by).
    for (let i = 0; i < 5; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 15));
      expect((await job(name)).state).toBe('JOB_STATE_IDLE');
    }
    expect(trainer.calls).toEqual([1]);
    expect([...client.calls.values()].reduce((a, b) => a + b, 0)).toBe(sampled);
    // The replica is back: RUNNING again, from step 2, to the end.
    capacity.up = true;
    const done = await until(name, ['JOB_STATE_COMPLETED', 'JOB_STATE_FAILED']);
    expect(done.state).toBe('JOB_STATE_COMPLETED');
    expect(trainer.applied.map((s) => s.step)).toEqual([1, 2, 3]);
    expect(done.jobProgress).toMatchObject({ totalProcessedRequests: 48, totalInputRequests: 48 });
    expect(capacity.released).toContain(name);
  });

  it('a job cancelled while IDLE is CANCELLED, and its capacity released', async () => {
    const capacity = new SwitchableCapacity();
    trainer.holdAt(1);
    const name = await create('idle-cancel', { dataset: await dataset('idle-cancel', prompts(2)), trainingConfig: { baseModel: base, epochs: 2 } });
    startWorkers(capacity);
    await waitFor(() => trainer.gate?.reached === true, 10_000, 'step 1');
    capacity.up = false;
    trainer.gate!.open();
    expect((await until(name, ['JOB_STATE_IDLE', 'JOB_STATE_COMPLETED'])).state).toBe('JOB_STATE_IDLE');
    await jobs.cancel(ctx, name);
    expect((await until(name, ['JOB_STATE_CANCELLED', 'JOB_STATE_FAILED'])).state).toBe('JOB_STATE_CANCELLED');
    expect(capacity.released).toContain(name);
    expect(trainer.calls).toEqual([1]);
  });

  it('a deleted job stops and its run record goes', async () => {
    trainer.holdAt(1);
    const name = await create('gone', { dataset: await dataset('gone', prompts(4)) });
    startWorkers();
    await waitFor(() => trainer.gate?.reached === true, 10_000, 'step 1');
    await jobs.delete(ctx, name);
    await waitFor(async () => (await readRftRun(ctx, storage.resources, name)) === undefined, 10_000, 'run record removed');
    expect(trainer.discarded).toContain(name);
  });
});
