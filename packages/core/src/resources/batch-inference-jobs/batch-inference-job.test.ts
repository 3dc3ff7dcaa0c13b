import { beforeEach, describe, expect, it } from 'vitest';
import { batchInferenceJobServiceOver } from './batch-inference-job-fixtures.js';
import { MemoryStorage } from '../../testing/index.js';
import { Code } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import type { JsonObject } from '../../ports/json.js';
import { canTransition } from '../common/state-machine.js';
import { batchInferenceJobStateValues } from './batch-inference-job-schema.js';
import { batchInferenceJobStateMachine, batchInferenceJobTerminalStates } from './batch-inference-job-state-machine.js';
import type { BatchInferenceJobService } from './batch-inference-job-service.js';
import { readRun } from './batch-inference-job-runs.js';

const ctx: RequestContext = {
  requestId: 'r1',
  principal: { userName: 'accounts/acme/users/admin', accountId: 'acme', role: 'admin', email: 'admin@example.com' },
};
const system: RequestContext = { requestId: 'seed' };
const zeroProgress = {
  percent: 0, epoch: 0, totalInputRequests: 0, totalProcessedRequests: 0, successfullyProcessedRequests: 0,
  failedRequests: 0, outputRows: 0, inputTokens: 0, outputTokens: 0, cachedInputTokenCount: 0,
};

let storage: MemoryStorage;
let jobs: BatchInferenceJobService;

async function seed(name: string, data: JsonObject = {}): Promise<void> {
  await storage.resources.create(system, name, { name, ...data });
}

beforeEach(async () => {
  storage = new MemoryStorage();
  jobs = await batchInferenceJobServiceOver(storage, ctx);
  await seed('accounts/acme/models/base', { kind: 'HUB_BASE_MODEL', baseModelDetails: { defaultPrecision: 'FP8' } });
  await seed('accounts/acme/models/addon', { kind: 'HUB_PEFT_ADDON', peftDetails: { baseModel: 'accounts/acme/models/base', r: 8, targetModules: ['q'] } });
  await seed('accounts/acme/models/orphan', { kind: 'HUB_PEFT_ADDON', peftDetails: { baseModel: 'accounts/acme/models/gone', r: 8, targetModules: ['q'] } });
  await seed('accounts/acme/models/plain', { kind: 'CUSTOM_MODEL' });
  await seed('accounts/acme/datasets/in', { state: 'READY' });
  await seed('accounts/other/models/base', { kind: 'HUB_BASE_MODEL' });
  await seed('accounts/other/datasets/in', { state: 'READY' });
});

describe('batch inference job state machine', () => {
  const machine = batchInferenceJobStateMachine;

  it('declares every state and only known targets', () => {
    expect(Object.keys(machine.transitions).sort()).toEqual([...batchInferenceJobStateValues].sort());
    for (const targets of Object.values(machine.transitions)) for (const target of targets) expect(batchInferenceJobStateValues).toContain(target);
    expect(machine.initial).toBe('JOB_STATE_CREATING');
  });

  it('reaches every state from the initial one, and COMPLETED on the happy path', () => {
    const seen = new Set<string>([machine.initial]);
    const queue = [machine.initial];
    while (queue.length > 0) {
      const state = queue.shift()!;
      for (const next of machine.transitions[state]) if (!seen.has(next)) { seen.add(next); queue.push(next); }
    }
    expect([...seen].sort()).toEqual(batchInferenceJobStateValues.filter((s) => s !== 'JOB_STATE_UNSPECIFIED').sort());
    const path = ['JOB_STATE_CREATING', 'JOB_STATE_VALIDATING', 'JOB_STATE_PENDING', 'JOB_STATE_RUNNING', 'JOB_STATE_WRITING_RESULTS', 'JOB_STATE_COMPLETED'] as const;
    for (let i = 1; i < path.length; i += 1) expect(canTransition(machine, path[i - 1]!, path[i]!)).toBe(true);
  });

  it('terminal states lead only to clean-up, and nothing leaves the last clean-up state', () => {
    for (const state of batchInferenceJobTerminalStates) expect(machine.transitions[state]).toEqual(['JOB_STATE_DELETING']);
    expect(machine.transitions.JOB_STATE_DELETING_CLEANING_UP).toEqual([]);
    expect(canTransition(machine, 'JOB_STATE_COMPLETED', 'JOB_STATE_RUNNING')).toBe(false);
  });
});

describe('BatchInferenceJobService.create', () => {
  it('creates a job in JOB_STATE_CREATING with zero progress, createdBy, normalised dataset names and default precision', async () => {
    const job = await jobs.create(ctx, 'acme', {
      displayName: 'nightly', model: 'accounts/acme/models/base', inputDatasetId: 'in', outputDatasetId: 'out',
      inferenceParameters: { maxTokens: 128, temperature: 0.7, topP: 0.9, n: 2, extraBody: '{"stop":["\\n"]}', topK: 40 },
    }, 'job1');
    expect(job).toMatchObject({
      name: 'accounts/acme/batchInferenceJobs/job1',
      displayName: 'nightly',
      state: 'JOB_STATE_CREATING',
      createdBy: 'admin@example.com',
      model: 'accounts/acme/models/base',
      inputDatasetId: 'accounts/acme/datasets/in',
      outputDatasetId: 'accounts/acme/datasets/out',
      precision: 'FP8',
      jobProgress: zeroProgress,
      inferenceParameters: { maxTokens: 128, temperature: 0.7, topP: 0.9, n: 2, topK: 40 },
    });
    await expect(jobs.create(ctx, 'acme', { model: 'accounts/acme/models/base', inputDatasetId: 'in' }, 'job1')).rejects.toMatchObject({ code: Code.ALREADY_EXISTS });
  });

  it('accepts full dataset names and generates an id', async () => {
    const job = await jobs.create(ctx, 'acme', { model: 'accounts/acme/models/plain', inputDatasetId: 'accounts/acme/datasets/in', outputDatasetId: 'accounts/acme/datasets/out' });
    expect(job.name).toMatch(/^accounts\/acme\/batchInferenceJobs\/[a-z][a-z0-9]{15}$/);
    expect(job).toMatchObject({ inputDatasetId: 'accounts/acme/datasets/in', outputDatasetId: 'accounts/acme/datasets/out' });
  });

  it('records on the run record whether the creator named the precision (a continuation inherits it)', async () => {
    const requested = async (name: string | undefined) => (await readRun(ctx, storage.resources, name ?? ''))?.precisionRequested === true;
    const named = await jobs.create(ctx, 'acme', { model: 'accounts/acme/models/base', inputDatasetId: 'in', precision: 'BF16' });
    const unnamed = await jobs.create(ctx, 'acme', { model: 'accounts/acme/models/base', inputDatasetId: 'in', precision: 'PRECISION_UNSPECIFIED' });
    expect([await requested(named.name), await requested(unnamed.name)]).toEqual([true, false]);
    for (const job of [named, unnamed]) {
      const stored = (await storage.resources.get(ctx, job.name!))!;
      await storage.resources.update(ctx, job.name!, { ...stored.data, state: 'JOB_STATE_COMPLETED' }, stored.etag);
    }
    const continuedNamed = await jobs.create(ctx, 'acme', { continuedFromJobName: named.name });
    const continuedUnnamed = await jobs.create(ctx, 'acme', { continuedFromJobName: unnamed.name });
    expect(continuedNamed.precision).toBe('BF16');
    expect([await requested(continuedNamed.name), await requested(continuedUnnamed.name)]).toEqual([true, false]);
  });

  it('chooses the precision: explicit, model default, base model default for an add-on, else FP16', async () => {
    const explicit = await jobs.create(ctx, 'acme', { model: 'accounts/acme/models/base', inputDatasetId: 'in', precision: 'BF16' });
    expect(explicit.precision).toBe('BF16');
    const unspecified = await jobs.create(ctx, 'acme', { model: 'accounts/acme/models/base', inputDatasetId: 'in', precision: 'PRECISION_UNSPECIFIED' });
    expect(unspecified.precision).toBe('FP8');
    expect((await jobs.create(ctx, 'acme', { model: 'accounts/acme/models/addon', inputDatasetId: 'in' })).precision).toBe('FP8');
    expect((await jobs.create(ctx, 'acme', { model: 'accounts/acme/models/orphan', inputDatasetId: 'in' })).precision).toBe('FP16');
    expect((await jobs.create(ctx, 'acme', { model: 'accounts/acme/models/plain', inputDatasetId: 'in' })).precision).toBe('FP16');
  });

  it('requires model and inputDatasetId without continuedFromJobName', async () => {
    await expect(jobs.create(ctx, 'acme', { inputDatasetId: 'in' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'model' });
    await expect(jobs.create(ctx, 'acme', { model: 'accounts/acme/models/base' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'inputDatasetId' });
  });

  it('requires the model and input dataset to exist in the account', async () => {
    await expect(jobs.create(ctx, 'acme', { model: 'accounts/acme/models/none', inputDatasetId: 'in' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'model', reason: 'REFERENCE_NOT_FOUND' });
    await expect(jobs.create(ctx, 'acme', { model: 'accounts/other/models/base', inputDatasetId: 'in' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED, message: 'permission denied on accounts/other' });
    await expect(jobs.create(ctx, 'acme', { model: 'base', inputDatasetId: 'in' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'model' });
    await expect(jobs.create(ctx, 'acme', { model: 'accounts/acme/models/base', inputDatasetId: 'none' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'inputDatasetId', reason: 'REFERENCE_NOT_FOUND' });
    await expect(jobs.create(ctx, 'acme', { model: 'accounts/acme/models/base', inputDatasetId: 'accounts/other/datasets/in' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED, message: 'permission denied on accounts/other' });
    await expect(jobs.create(ctx, 'acme', { model: 'accounts/acme/models/base', inputDatasetId: 'In Put' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'inputDatasetId' });
  });

  it('checks the output dataset form and account but not its existence', async () => {
    await expect(jobs.create(ctx, 'acme', { model: 'accounts/acme/models/base', inputDatasetId: 'in', outputDatasetId: 'accounts/other/datasets/out' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    await expect(jobs.create(ctx, 'acme', { model: 'accounts/acme/models/base', inputDatasetId: 'in', outputDatasetId: 'accounts/acme/models/out' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'outputDatasetId' });
  });

  it('validates inferenceParameters ranges', async () => {
    const base = { model: 'accounts/acme/models/base', inputDatasetId: 'in' };
    for (const [key, value] of [['maxTokens', 0], ['maxTokens', 1.5], ['temperature', 2.1], ['temperature', -0.1], ['topP', 1.1], ['n', 0], ['topK', -1], ['extraBody', {}]] as const) {
      await expect(jobs.create(ctx, 'acme', { ...base, inferenceParameters: { [key]: value } }), `${key}=${JSON.stringify(value)}`).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    }
    await expect(jobs.create(ctx, 'acme', { ...base, inferenceParameters: { seed: 1 } })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'UNKNOWN_FIELD' });
    for (const extraBody of ['{"stop":', '[1]', '"text"']) {
      await expect(jobs.create(ctx, 'acme', { ...base, inferenceParameters: { extraBody } }), extraBody).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'inferenceParameters.extraBody' });
    }
    const edge = await jobs.create(ctx, 'acme', { ...base, inferenceParameters: { maxTokens: 1, temperature: 2, topP: 0, n: 1, topK: 0 } });
    expect(edge.inferenceParameters).toEqual({ maxTokens: 1, temperature: 2, topP: 0, n: 1, topK: 0 });
  });

  it('rejects unknown fields and bad enum values, ignores output-only fields', async () => {
    const base = { model: 'accounts/acme/models/base', inputDatasetId: 'in' };
    await expect(jobs.create(ctx, 'acme', { ...base, priority: 1 })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'UNKNOWN_FIELD' });
    await expect(jobs.create(ctx, 'acme', { ...base, precision: 'FP64' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'precision' });
    const job = await jobs.create(ctx, 'acme', { ...base, state: 'JOB_STATE_COMPLETED', createdBy: 'x@example.com', jobProgress: { percent: 100 } });
    expect(job).toMatchObject({ state: 'JOB_STATE_CREATING', createdBy: 'admin@example.com', jobProgress: zeroProgress });
  });

  it('checks the permission, account and id', async () => {
    const viewer: RequestContext = { requestId: 'v', principal: { userName: 'accounts/acme/users/v', accountId: 'acme', role: 'inference-user' } };
    await expect(jobs.create(viewer, 'acme', { model: 'accounts/acme/models/base', inputDatasetId: 'in' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    await expect(jobs.create(ctx, 'other', { model: 'accounts/other/models/base', inputDatasetId: 'in' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    await expect(jobs.create(ctx, 'acme', { model: 'accounts/acme/models/base', inputDatasetId: 'in' }, 'Job_1')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'batchInferenceJobId' });
  });
});

describe('continuedFromJobName', () => {
  beforeEach(async () => {
    await jobs.create(ctx, 'acme', { model: 'accounts/acme/models/addon', inputDatasetId: 'in', outputDatasetId: 'out', precision: 'FP16', inferenceParameters: { maxTokens: 64 } }, 'first');
  });

  it('must name an existing job of the account', async () => {
    await expect(jobs.create(ctx, 'acme', { continuedFromJobName: 'accounts/acme/batchInferenceJobs/none' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'continuedFromJobName' });
    await expect(jobs.create(ctx, 'acme', { continuedFromJobName: 'accounts/other/batchInferenceJobs/first' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    await expect(jobs.create(ctx, 'acme', { continuedFromJobName: 'first' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, field: 'continuedFromJobName' });
  });

  it('refuses to continue a job that is still working', async () => {
    await expect(jobs.create(ctx, 'acme', { continuedFromJobName: 'accounts/acme/batchInferenceJobs/first' })).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION });
  });

  it('continues a stopped job, inheriting what the new job leaves out', async () => {
    await jobs.resources.mutate(system, 'accounts/acme/batchInferenceJobs/first', (job) => ({ ...job, state: 'JOB_STATE_FAILED' }));
    const next = await jobs.create(ctx, 'acme', { continuedFromJobName: 'accounts/acme/batchInferenceJobs/first', inferenceParameters: { maxTokens: 32 } }, 'second');
    expect(next).toMatchObject({
      continuedFromJobName: 'accounts/acme/batchInferenceJobs/first',
      model: 'accounts/acme/models/addon',
      inputDatasetId: 'accounts/acme/datasets/in',
      precision: 'FP16',
      inferenceParameters: { maxTokens: 32 },
      state: 'JOB_STATE_CREATING',
      jobProgress: zeroProgress,
    });
    expect(next.outputDatasetId).toBeUndefined();
  });
});

describe('BatchInferenceJobService get, list, delete', () => {
  it('gets with a readMask and lists with filter and orderBy (created_time accepted)', async () => {
    await jobs.create(ctx, 'acme', { model: 'accounts/acme/models/base', inputDatasetId: 'in' }, 'a');
    await jobs.create(ctx, 'acme', { model: 'accounts/acme/models/plain', inputDatasetId: 'in' }, 'b');
    await jobs.create(ctx, 'acme', { model: 'accounts/acme/models/base', inputDatasetId: 'in' }, 'c');
    expect(await jobs.get(ctx, 'accounts/acme/batchInferenceJobs/a', 'state,model')).toEqual({
      name: 'accounts/acme/batchInferenceJobs/a', state: 'JOB_STATE_CREATING', model: 'accounts/acme/models/base',
    });
    const base = await jobs.list(ctx, 'acme', { filter: 'model = "accounts/acme/models/base" AND state = JOB_STATE_CREATING', orderBy: 'name desc' });
    expect(base.items.map((j) => j.name)).toEqual(['accounts/acme/batchInferenceJobs/c', 'accounts/acme/batchInferenceJobs/a']);
    expect(base.totalSize).toBe(2);
    const byCreated = await jobs.list(ctx, 'acme', { orderBy: 'created_time desc', pageSize: 1 });
    expect(byCreated.items).toHaveLength(1);
    expect(byCreated.totalSize).toBe(3);
    const rest = await jobs.list(ctx, 'acme', { orderBy: 'created_time desc', pageSize: 5, pageToken: byCreated.nextPageToken! });
    expect(rest.items).toHaveLength(2);
    expect((await jobs.list(ctx, 'acme', { filter: 'precision = FP16' })).items.map((j) => j.name)).toEqual(['accounts/acme/batchInferenceJobs/b']);
    await expect(jobs.list(ctx, 'acme', { filter: 'state = JOB_STATE_PAUSED' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
  });

  it('deletes in any state, then NOT_FOUND', async () => {
    await jobs.create(ctx, 'acme', { model: 'accounts/acme/models/base', inputDatasetId: 'in' }, 'a');
    await jobs.delete(ctx, 'accounts/acme/batchInferenceJobs/a');
    await expect(jobs.get(ctx, 'accounts/acme/batchInferenceJobs/a')).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(jobs.delete(ctx, 'accounts/acme/batchInferenceJobs/a')).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });

  it('has no update method', () => {
    expect((jobs as unknown as Record<string, unknown>).update).toBeUndefined();
  });
});
