import { beforeEach, describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../testing/index.js';
import { Code } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { systemClock } from '../../ports/clock.js';
import { randomIdGenerator } from '../../ports/id-generator.js';
import type { JsonObject } from '../../ports/json.js';
import { ResourceEnvironment } from '../common/resource-environment.js';
import { jobStateValues, type JobState } from '../common/schema-parts.js';
import { GatewaySecrets } from '../common/secrets.js';
import { canTransition } from '../common/state-machine.js';
import { lossMethodValues } from './reinforcement-fine-tuning-job-schema.js';
import { redactTrackerApiKey } from './reinforcement-fine-tuning-job-definition.js';
import {
  reinforcementFineTuningJobResumableStates, reinforcementFineTuningJobStateMachine,
} from './reinforcement-fine-tuning-job-state-machine.js';
import { ReinforcementFineTuningJobService } from './reinforcement-fine-tuning-job-service.js';
import { reinforcementFineTuningQueue, rftRunRecordName } from './reinforcement-fine-tuning-job-runs.js';

const ctx: RequestContext = {
  requestId: 'r1',
  principal: { userName: 'accounts/acme/users/admin', accountId: 'acme', role: 'admin', email: 'admin@example.com' },
};
const system: RequestContext = { requestId: 'seed' };
const machine = reinforcementFineTuningJobStateMachine;
const terminal: readonly JobState[] = [
  'JOB_STATE_COMPLETED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED', 'JOB_STATE_EXPIRED', 'JOB_STATE_EARLY_STOPPED',
  'JOB_STATE_DELETING', 'JOB_STATE_DELETING_CLEANING_UP', 'JOB_STATE_UNSPECIFIED',
];
const minimal = { dataset: 'accounts/acme/datasets/train', evaluator: 'accounts/acme/evaluators/judge', trainingConfig: { baseModel: 'accounts/acme/models/base' } };

let storage: MemoryStorage;
let jobs: ReinforcementFineTuningJobService;

async function seed(name: string, data: JsonObject = {}): Promise<void> {
  await storage.resources.create(system, name, { name, ...data });
}

/** The pieces of queue work queued for RFT jobs (claimed, so counted once). */
async function queuedWork(): Promise<number> {
  let count = 0;
  while (await storage.queue.claim(system, reinforcementFineTuningQueue, 'test', 60_000)) count += 1;
  return count;
}

async function setState(name: string, state: JobState): Promise<void> {
  await jobs.resources.mutate(system, name, (job) => ({ ...job, state }));
}

beforeEach(async () => {
  storage = new MemoryStorage();
  const env = new ResourceEnvironment(storage, systemClock, randomIdGenerator);
  const secrets = new GatewaySecrets('test-secret');
  await secrets.load(ctx, storage.kv);
  jobs = new ReinforcementFineTuningJobService(env, secrets);
  await seed('accounts/acme/datasets/train', { state: 'READY', format: 'RL' });
  await seed('accounts/acme/datasets/eval', { state: 'READY', format: 'RL' });
  await seed('accounts/acme/models/base', { kind: 'HUB_BASE_MODEL' });
  await seed('accounts/acme/models/adapter', { kind: 'HUB_PEFT_ADDON', peftDetails: { baseModel: 'accounts/acme/models/base', r: 4 } });
  await seed('accounts/acme/models/frozen', { kind: 'HUB_BASE_MODEL', rlLoraTunable: false });
  await seed('accounts/acme/models/full', { kind: 'HUB_BASE_MODEL', rlFullParameterTunable: true });
  await seed('accounts/acme/evaluators/judge', { state: 'ACTIVE' });
  await seed('accounts/acme/evaluators/broken', { state: 'BUILD_FAILED', status: { code: 'INVALID_ARGUMENT', message: 'does not compile' } });
  await seed('accounts/other/datasets/train', { state: 'READY' });
  await seed('accounts/other/models/base', { kind: 'HUB_BASE_MODEL' });
});

describe('reinforcement fine-tuning job state machine', () => {
  it('declares every JobState, including the reinforcement-only ones, with known targets', () => {
    expect(Object.keys(machine.transitions).sort()).toEqual([...jobStateValues].sort());
    for (const state of ['JOB_STATE_IDLE', 'JOB_STATE_CANCELLING', 'JOB_STATE_EARLY_STOPPED', 'JOB_STATE_PAUSED'] as const) {
      expect(machine.transitions[state]).toBeDefined();
    }
    for (const targets of Object.values(machine.transitions)) for (const target of targets) expect(jobStateValues).toContain(target);
    expect(machine.initial).toBe('JOB_STATE_CREATING');
  });

  it('reaches every state from the initial one', () => {
    const seen = new Set<JobState>([machine.initial]);
    const queue: JobState[] = [machine.initial];
    while (queue.length > 0) {
      for (const next of machine.transitions[queue.shift()!]) if (!seen.has(next)) { seen.add(next); queue.push(next); }
    }
    expect([...seen].sort()).toEqual(jobStateValues.filter((s) => s !== 'JOB_STATE_UNSPECIFIED').sort());
  });

  it('every non-terminal state can be cancelled, no terminal one can', () => {
    for (const state of jobStateValues) {
      expect(canTransition(machine, state, 'JOB_STATE_CANCELLED'), state).toBe(!terminal.includes(state));
    }
  });

  it('PAUSED, FAILED and CANCELLED resume to PENDING; COMPLETED and EARLY_STOPPED do not', () => {
    expect([...reinforcementFineTuningJobResumableStates].sort()).toEqual(['JOB_STATE_CANCELLED', 'JOB_STATE_FAILED', 'JOB_STATE_PAUSED']);
    for (const state of reinforcementFineTuningJobResumableStates) expect(canTransition(machine, state, 'JOB_STATE_PENDING')).toBe(true);
    expect(canTransition(machine, 'JOB_STATE_COMPLETED', 'JOB_STATE_PENDING')).toBe(false);
    expect(canTransition(machine, 'JOB_STATE_EARLY_STOPPED', 'JOB_STATE_PENDING')).toBe(false);
  });
});

describe('ReinforcementFineTuningJobService.create', () => {
  it('creates a job with defaults, zero progress and createdBy', async () => {
    const job = await jobs.create(ctx, 'acme', {
      ...minimal,
      displayName: 'rl run',
      evaluationDataset: 'accounts/acme/datasets/eval',
      trainingConfig: { baseModel: 'accounts/acme/models/base', outputModel: 'accounts/acme/models/tuned', learningRate: 0.0001, epochs: 2, loraRank: 16, region: 'US_IOWA_1' },
      lossConfig: { method: 'GRPO', klBeta: 0.1 },
      inferenceParameters: { maxOutputTokens: 512, temperature: 1, topP: 1, responseCandidatesCount: 4, extraBody: '{}', topK: 0 },
      trackerConfig: { enabled: true, project: 'p', entity: 'e' },
      objectStoreConfig: { credentialsSecret: 's', iamRoleArn: 'arn:x' },
      mcpServer: 'https://mcp.example.com',
      maxConcurrentRollouts: 8,
      maxConcurrentEvaluations: 4,
    }, 'rft1');
    expect(job).toMatchObject({
      name: 'accounts/acme/reinforcementFineTuningJobs/rft1',
      state: 'JOB_STATE_CREATING',
      createdBy: 'admin@example.com',
      chunkSize: 200,
      nodeCount: 1,
      jobProgress: { percent: 0, epoch: 0, totalInputRequests: 0, outputTokens: 0, cachedInputTokenCount: 0 },
      lossConfig: { method: 'GRPO', klBeta: 0.1 },
      trainingConfig: { outputModel: 'accounts/acme/models/tuned', loraRank: 16 },
    });
    expect(typeof job.createTime).toBe('string');
    expect(job.completedTime).toBeUndefined();
  });

  it('keeps chunkSize and nodeCount given, and checks their ranges', async () => {
    const job = await jobs.create(ctx, 'acme', { ...minimal, chunkSize: 10000, nodeCount: 4 });
    expect(job).toMatchObject({ chunkSize: 10000, nodeCount: 4 });
    expect((await jobs.create(ctx, 'acme', { ...minimal, chunkSize: 1 })).chunkSize).toBe(1);
    await expect(jobs.create(ctx, 'acme', { ...minimal, chunkSize: 0 })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'chunkSize' });
    await expect(jobs.create(ctx, 'acme', { ...minimal, chunkSize: 10001 })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'chunkSize' });
    await expect(jobs.create(ctx, 'acme', { ...minimal, nodeCount: 0 })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'nodeCount' });
  });

  it('requires dataset (existing, same account) and evaluator (existing, same account, built)', async () => {
    await expect(jobs.create(ctx, 'acme', { evaluator: minimal.evaluator })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'dataset' });
    await expect(jobs.create(ctx, 'acme', { dataset: minimal.dataset })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'evaluator' });
    await expect(jobs.create(ctx, 'acme', { ...minimal, dataset: 'accounts/acme/datasets/none' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'dataset', reason: 'REFERENCE_NOT_FOUND' });
    await expect(jobs.create(ctx, 'acme', { ...minimal, dataset: 'accounts/other/datasets/train' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED, message: 'permission denied on accounts/other' });
    await expect(jobs.create(ctx, 'acme', { ...minimal, evaluator: 'judge' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'evaluator' });
    await expect(jobs.create(ctx, 'acme', { ...minimal, evaluator: 'accounts/acme/models/judge' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'evaluator' });
    await expect(jobs.create(ctx, 'acme', { ...minimal, evaluator: 'accounts/other/evaluators/judge' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    await expect(jobs.create(ctx, 'acme', { ...minimal, evaluator: 'accounts/acme/evaluators/none' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'evaluator', reason: 'REFERENCE_NOT_FOUND' });
    await expect(jobs.create(ctx, 'acme', { ...minimal, evaluator: 'accounts/acme/evaluators/broken' })).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION, field: 'evaluator', message: expect.stringContaining('does not compile') });
    // A bare dataset id is accepted and stored as the full name.
    expect((await jobs.create(ctx, 'acme', { ...minimal, dataset: 'train' })).dataset).toBe('accounts/acme/datasets/train');
  });

  it('checks evaluationDataset, and that it excludes evalAutoCarveout', async () => {
    await expect(jobs.create(ctx, 'acme', { ...minimal, evaluationDataset: 'accounts/acme/datasets/none' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'evaluationDataset' });
    await expect(jobs.create(ctx, 'acme', { ...minimal, evaluationDataset: 'accounts/acme/datasets/eval', evalAutoCarveout: true })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'evalAutoCarveout' });
    expect((await jobs.create(ctx, 'acme', { ...minimal, evalAutoCarveout: true })).evalAutoCarveout).toBe(true);
  });

  it('checks trainingConfig references', async () => {
    await expect(jobs.create(ctx, 'acme', { ...minimal, trainingConfig: { baseModel: 'accounts/acme/models/none' } })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'trainingConfig.baseModel' });
    await expect(jobs.create(ctx, 'acme', { ...minimal, trainingConfig: { baseModel: 'accounts/other/models/base' } })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    await expect(jobs.create(ctx, 'acme', { ...minimal, trainingConfig: { warmStartFrom: 'accounts/acme/models/none' } })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'trainingConfig.warmStartFrom' });
    await expect(jobs.create(ctx, 'acme', { ...minimal, trainingConfig: { baseModel: 'accounts/acme/models/base', warmStartFrom: 'accounts/acme/models/adapter' } })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'trainingConfig.warmStartFrom' });
    await expect(jobs.create(ctx, 'acme', { ...minimal, trainingConfig: { baseModel: 'accounts/acme/models/base', outputModel: 'tuned' } })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'trainingConfig.outputModel' });
    await expect(jobs.create(ctx, 'acme', { ...minimal, trainingConfig: { baseModel: 'accounts/acme/models/base', outputModel: 'accounts/other/models/tuned' } })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    const warm = await jobs.create(ctx, 'acme', { ...minimal, trainingConfig: { warmStartFrom: 'accounts/acme/models/adapter' } });
    expect(warm.trainingConfig).toEqual({ warmStartFrom: 'accounts/acme/models/adapter', loraRank: 4 });
    await expect(jobs.create(ctx, 'acme', { ...minimal, trainingConfig: { warmStartFrom: 'accounts/acme/models/adapter', loraRank: 8 } })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'trainingConfig.loraRank' });
    await expect(jobs.create(ctx, 'acme', { ...minimal, trainingConfig: { warmStartFrom: 'accounts/acme/models/base' } })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'trainingConfig.warmStartFrom' });
    await expect(jobs.create(ctx, 'acme', { ...minimal, trainingConfig: { baseModel: 'accounts/acme/models/base', outputModel: 'accounts/acme/models/adapter' } })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'trainingConfig.outputModel' });
  });

  it('requires a base model that allows RL at the rank: LoRA unless rlLoraTunable is false, full-parameter (rank 0) only with rlFullParameterTunable', async () => {
    await expect(jobs.create(ctx, 'acme', { ...minimal, trainingConfig: {} })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'trainingConfig.baseModel' });
    expect((await jobs.create(ctx, 'acme', minimal)).trainingConfig).toEqual({ baseModel: 'accounts/acme/models/base', loraRank: 8 });
    await expect(jobs.create(ctx, 'acme', { ...minimal, trainingConfig: { baseModel: 'accounts/acme/models/frozen' } })).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION, message: expect.stringContaining('rlLoraTunable') });
    await expect(jobs.create(ctx, 'acme', { ...minimal, trainingConfig: { baseModel: 'accounts/acme/models/base', loraRank: 0 } })).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION, field: 'trainingConfig.loraRank' });
    expect((await jobs.create(ctx, 'acme', { ...minimal, trainingConfig: { baseModel: 'accounts/acme/models/full', loraRank: 0 } })).trainingConfig?.loraRank).toBe(0);
    for (const loraRank of [2, 65]) {
      await expect(jobs.create(ctx, 'acme', { ...minimal, trainingConfig: { baseModel: 'accounts/acme/models/base', loraRank } })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'trainingConfig.loraRank' });
    }
    await expect(jobs.create(ctx, 'acme', { ...minimal, trainingConfig: { baseModel: 'accounts/acme/models/adapter' } })).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION, message: expect.stringContaining('is an add-on') });
  });

  it('accepts every lossConfig.method and rejects others', async () => {
    for (const method of lossMethodValues) {
      expect((await jobs.create(ctx, 'acme', { ...minimal, lossConfig: { method } })).lossConfig).toEqual({ method });
    }
    await expect(jobs.create(ctx, 'acme', { ...minimal, lossConfig: { method: 'PPO' } })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'lossConfig.method' });
  });

  it('validates inferenceParameters, trainingConfig and the other objects strictly', async () => {
    for (const bad of [
      { inferenceParameters: { maxOutputTokens: 0 } }, { inferenceParameters: { temperature: 3 } }, { inferenceParameters: { topP: -0.5 } },
      { inferenceParameters: { responseCandidatesCount: 0 } }, { inferenceParameters: { topK: -1 } }, { inferenceParameters: { extraBody: 1 } },
      { inferenceParameters: { maxTokens: 5 } }, { trainingConfig: { region: 'MARS_1' } }, { trainingConfig: { epochs: -1 } },
      { trainingConfig: { learningRate: 'fast' } }, { trackerConfig: { enabled: 'yes' } }, { objectStoreConfig: { bucket: 'b' } },
      { maxConcurrentRollouts: -1 }, { displayName: 'x'.repeat(64) }, { unknownField: 1 },
    ]) {
      await expect(jobs.create(ctx, 'acme', { ...minimal, ...bad }), JSON.stringify(bad)).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    }
  });

  it('ignores output-only fields', async () => {
    const job = await jobs.create(ctx, 'acme', {
      ...minimal, state: 'JOB_STATE_COMPLETED', completedTime: '2020-01-01T00:00:00Z', acceleratorSeconds: { GPUX_H100_80GB: '100' },
      trainerLogsSignedUrl: 'https://x', outputStats: 's', outputMetrics: 'm', createdBy: 'x@example.com', status: { code: 'OK' },
    });
    expect(job).toMatchObject({ state: 'JOB_STATE_CREATING', createdBy: 'admin@example.com' });
    for (const key of ['completedTime', 'acceleratorSeconds', 'trainerLogsSignedUrl', 'outputStats', 'outputMetrics', 'status'] as const) expect(job[key], key).toBeUndefined();
  });

  it('checks the permission, account and id', async () => {
    const viewer: RequestContext = { requestId: 'v', principal: { userName: 'accounts/acme/users/v', accountId: 'acme', role: 'inference-user' } };
    await expect(jobs.create(viewer, 'acme', minimal)).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    await expect(jobs.create(ctx, 'other', { dataset: 'accounts/other/datasets/train', evaluator: 'accounts/other/evaluators/e' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    await expect(jobs.create(ctx, 'acme', minimal, 'RFT!')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'reinforcementFineTuningJobId' });
    await jobs.create(ctx, 'acme', minimal, 'dup');
    await expect(jobs.create(ctx, 'acme', minimal, 'dup')).rejects.toMatchObject({ code: Code.ALREADY_EXISTS });
  });
});

describe('get, list, delete', () => {
  it('gets with a readMask, lists with filter and orderBy, deletes', async () => {
    await jobs.create(ctx, 'acme', { ...minimal, lossConfig: { method: 'DPO' } }, 'a');
    await jobs.create(ctx, 'acme', { ...minimal, lossConfig: { method: 'GRPO' }, trainingConfig: { baseModel: 'accounts/acme/models/full' } }, 'b');
    expect(await jobs.get(ctx, 'accounts/acme/reinforcementFineTuningJobs/a', 'lossConfig.method')).toEqual({
      name: 'accounts/acme/reinforcementFineTuningJobs/a', lossConfig: { method: 'DPO' },
    });
    const grpo = await jobs.list(ctx, 'acme', { filter: 'loss_config.method = GRPO' });
    expect(grpo.items.map((j) => j.name)).toEqual(['accounts/acme/reinforcementFineTuningJobs/b']);
    const byBase = await jobs.list(ctx, 'acme', { filter: 'training_config.base_model = "accounts/acme/models/full"' });
    expect(byBase.totalSize).toBe(1);
    await setState('accounts/acme/reinforcementFineTuningJobs/a', 'JOB_STATE_PAUSED');
    expect((await jobs.list(ctx, 'acme', { filter: 'state = JOB_STATE_PAUSED', orderBy: 'create_time desc' })).items.map((j) => j.name)).toEqual([
      'accounts/acme/reinforcementFineTuningJobs/a',
    ]);
    await jobs.delete(ctx, 'accounts/acme/reinforcementFineTuningJobs/a');
    await expect(jobs.get(ctx, 'accounts/acme/reinforcementFineTuningJobs/a')).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(jobs.delete(ctx, 'accounts/acme/reinforcementFineTuningJobs/a')).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });

  it('has no update method', () => {
    expect((jobs as unknown as Record<string, unknown>).update).toBeUndefined();
  });
});

describe('cancel', () => {
  const name = 'accounts/acme/reinforcementFineTuningJobs/job';
  beforeEach(async () => {
    await jobs.create(ctx, 'acme', minimal, 'job');
  });

  it('moves a job whose work is queued or running to CANCELLING (its worker ends it CANCELLED); answers {}', async () => {
    expect(await jobs.cancel(ctx, name)).toEqual({});
    const job = await jobs.get(ctx, name);
    expect(job).toMatchObject({ state: 'JOB_STATE_CANCELLING', status: { code: 'CANCELLED' } });
    expect(job.completedTime).toBeUndefined();
  });

  it('cancels from every non-terminal state: a PAUSED job (nothing running) at once, with completedTime', async () => {
    for (const state of jobStateValues.filter((s) => !terminal.includes(s) && s !== 'JOB_STATE_CANCELLING')) {
      await setState(name, state);
      await jobs.cancel(ctx, name);
      expect((await jobs.get(ctx, name)).state, state).toBe(state === 'JOB_STATE_PAUSED' ? 'JOB_STATE_CANCELLED' : 'JOB_STATE_CANCELLING');
    }
    await setState(name, 'JOB_STATE_PAUSED');
    await jobs.cancel(ctx, name);
    expect(typeof (await jobs.get(ctx, name)).completedTime).toBe('string');
    await setState(name, 'JOB_STATE_CANCELLING');
    await expect(jobs.cancel(ctx, name)).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION });
  });

  it('is FAILED_PRECONDITION from a terminal state and NOT_FOUND for a missing job', async () => {
    for (const state of terminal) {
      await setState(name, state);
      await expect(jobs.cancel(ctx, name), state).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION });
    }
    await expect(jobs.cancel(ctx, 'accounts/acme/reinforcementFineTuningJobs/none')).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });

  it('checks the permission', async () => {
    const viewer: RequestContext = { requestId: 'v', principal: { userName: 'accounts/acme/users/v', accountId: 'acme', role: 'inference-user' } };
    await expect(jobs.cancel(viewer, name)).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    const stranger: RequestContext = { requestId: 's', principal: { userName: 'accounts/other/users/s', accountId: 'other', role: 'admin' } };
    await expect(jobs.cancel(stranger, name)).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
  });
});

describe('resume', () => {
  const name = 'accounts/acme/reinforcementFineTuningJobs/job';
  beforeEach(async () => {
    await jobs.create(ctx, 'acme', minimal, 'job');
  });

  it('resumes a PAUSED job to PENDING and answers the job', async () => {
    await setState(name, 'JOB_STATE_PAUSED');
    const job = await jobs.resume(ctx, name);
    expect(job).toMatchObject({ name, state: 'JOB_STATE_PENDING' });
  });

  it('resumes a FAILED job, clearing its failure status and completedTime', async () => {
    await jobs.resources.mutate(system, name, (job) => ({
      ...job, state: 'JOB_STATE_FAILED', status: { code: 'INTERNAL', message: 'trainer crashed' }, completedTime: '2025-01-01T00:00:00Z',
    }));
    const job = await jobs.resume(ctx, name);
    expect(job.state).toBe('JOB_STATE_PENDING');
    expect(job.status).toBeUndefined();
    expect(job.completedTime).toBeUndefined();
  });

  it('is FAILED_PRECONDITION from any other state', async () => {
    for (const state of jobStateValues.filter((s) => !reinforcementFineTuningJobResumableStates.includes(s))) {
      await setState(name, state);
      await expect(jobs.resume(ctx, name), state).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION });
    }
    await expect(jobs.resume(ctx, 'accounts/acme/reinforcementFineTuningJobs/none')).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });

  it('a CANCELLED job resumes; each resume queues the job\'s work again under its own key', async () => {
    await setState(name, 'JOB_STATE_PAUSED');
    await jobs.cancel(ctx, name);
    expect((await jobs.resume(ctx, name)).state).toBe('JOB_STATE_PENDING');
    await setState(name, 'JOB_STATE_CANCELLED');
    await jobs.resume(ctx, name);
    expect(await queuedWork()).toBe(3);
    expect((await storage.resources.get(system, rftRunRecordName(name)))?.data).toMatchObject({ resumes: 2, step: 0 });
  });
});

describe('create and delete queue the job\'s work', () => {
  it('create stores the run record and the work in one transaction; delete queues the clean-up', async () => {
    const job = await jobs.create(ctx, 'acme', minimal, 'w');
    const name = job.name ?? '';
    expect((await storage.resources.get(system, rftRunRecordName(name)))?.data).toMatchObject({ step: 0, epoch: 0, chunk: 0, principal: { email: 'admin@example.com' } });
    await jobs.delete(ctx, name);
    expect(await queuedWork()).toBe(2);
  });
});

describe('trackerConfig.apiKey is write-only', () => {
  it('answers never carry the stored key', () => {
    expect(redactTrackerApiKey({ trackerConfig: { enabled: true, apiKey: 'secret-tracker-key-1234' } })).toEqual({ trackerConfig: { enabled: true, apiKey: '****1234' } });
    expect(redactTrackerApiKey({ trackerConfig: { apiKey: 'short' } })).toEqual({ trackerConfig: { apiKey: '****' } });
    expect(redactTrackerApiKey({ name: 'x' })).toEqual({ name: 'x' });
  });
});
