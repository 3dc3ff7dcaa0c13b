import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../contracts/json.js';
import { systemContext, type RequestContext } from '../contracts/request-context.js';
import { Code, GatewayError } from '../errors/index.js';
import { storageToken } from '../kernel/tokens.js';
import type { Storage } from '../ports/storage.js';
import { readRun } from '../resources/batch-inference-jobs/batch-inference-job-runs.js';
import type { ChatCompletionCall, ChatCompletionOutcome, ChatModelClient, ChatStreamOutcome } from '../responses/model-client.js';
import { memoryStorage } from '../testing/index.js';
import { waitFor } from '../testing/queue-worker-scenarios.js';
import { createTestGateway, principalContext, type TestGateway } from '../testing/test-gateway.js';
import { testRuntime, type TestRuntimeOptions } from '../testing/test-runtime.js';
import { QueueWorkerPool } from '../workers/queue-worker-pool.js';
import { BatchCapacity, temporaryDeploymentRecords, type TemporaryDeploymentsRecord } from './batch-capacity.js';
import { BatchInferenceRunner, type BatchInferenceOptions } from './batch-runner.js';

const account = 'acme';
const admin: RequestContext = principalContext(account, 'admin');
const model = `accounts/${account}/models/m`;

/** Answers every row; calls after `pauseAfter` hang until {@link release} or their abort (a worker that dies mid-chunk). */
class EchoClient implements ChatModelClient {
  calls = 0;
  readonly deployments = new Set<string>();
  release: () => void = () => {};
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));
  constructor(private readonly pauseAfter = Infinity) {}

  async complete(ctx: RequestContext, call: ChatCompletionCall): Promise<ChatCompletionOutcome> {
    this.calls += 1;
    this.deployments.add(call.target.deployment);
    if (this.calls > this.pauseAfter) {
      await new Promise<void>((resolve, reject) => {
        void this.gate.then(resolve);
        ctx.signal?.addEventListener('abort', () => reject(new GatewayError(Code.CANCELLED, 'cancelled')), { once: true });
      });
    }
    return { ok: true, completion: { object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] } };
  }

  async stream(): Promise<ChatStreamOutcome> {
    throw new Error('not used');
  }
}

let tg: TestGateway;
let storage: Storage;
const pools: QueueWorkerPool[] = [];

function startWorkers(client: ChatModelClient, options: BatchInferenceOptions = {}): QueueWorkerPool {
  const runner = new BatchInferenceRunner(
    { concurrency: 2, chunkSize: 4, rowRetryBaseMs: 1, cancelPollMs: 20, capacityPollMs: 20, leaseMs: 300, backoff: { initialMs: 10, maxMs: 20 }, ...options },
    new BatchCapacity(storage, tg.services.deployments),
  );
  runner.attach(client);
  const pool = new QueueWorkerPool({ storage, handlers: [runner.handler], pollIntervalMs: 10, resolver: tg.gateway, stopTimeoutMs: 50 });
  pool.start();
  pools.push(pool);
  return pool;
}

async function records(): Promise<TemporaryDeploymentsRecord[]> {
  return temporaryDeploymentRecords(systemContext(), storage, account);
}

async function deploymentsEver(): Promise<JsonObject[]> {
  return (await tg.services.deployments.list(admin, account, { showDeleted: true })).items as JsonObject[];
}

async function setup(options: TestRuntimeOptions = {}): Promise<void> {
  tg = await createTestGateway({ plugins: [memoryStorage(), testRuntime(options)] });
  storage = tg.gateway.resolve(storageToken);
  await tg.services.models.create(admin, account, { kind: 'HUB_BASE_MODEL', baseModelDetails: {} }, 'm');
  await storage.resources.create(systemContext(), `accounts/${account}/datasets/in`, { name: `accounts/${account}/datasets/in`, state: 'READY' });
  const lines = Array.from({ length: 30 }, (_, i) => JSON.stringify({ custom_id: `r${i}`, body: { messages: [{ role: 'user', content: `q${i}` }] } }));
  await storage.blobs.put(systemContext(), `datasets/${account}/datasets/in/rows.jsonl`, Buffer.from(`${lines.join('\n')}\n`), 'application/jsonl');
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.stop()));
  await tg.stop();
});

describe('batch jobs and temporary deployments', () => {
  it('a job resumed after its worker died keeps the temporary deployment on its run record, and it is deleted once at the end', async () => {
    await setup();
    const first = new EchoClient(9);
    const pool = startWorkers(first);
    const job = await tg.services.batchInferenceJobs.create(admin, account, { model, inputDatasetId: 'in', outputDatasetId: 'out' }, 'j');
    await waitFor(async () => ((await tg.services.batchInferenceJobs.get(admin, job.name!)).jobProgress?.totalProcessedRequests ?? 0) >= 8, 10_000);
    const run = await readRun(systemContext(), storage.resources, job.name!);
    expect(run?.temporaryDeployment).toBeDefined();
    expect(run?.deployment).toBe(run?.temporaryDeployment);
    expect([...first.deployments]).toEqual([run?.temporaryDeployment]);
    await pool.stop();

    const second = new EchoClient();
    startWorkers(second);
    await waitFor(async () => (await tg.services.batchInferenceJobs.get(admin, job.name!)).state === 'JOB_STATE_COMPLETED', 10_000);
    expect((await tg.services.batchInferenceJobs.get(admin, job.name!)).jobProgress).toMatchObject({ totalProcessedRequests: 30, successfullyProcessedRequests: 30 });
    expect([...second.deployments]).toEqual([run?.temporaryDeployment]);
    const ever = await deploymentsEver();
    expect(ever.map((d) => d.name)).toEqual([run?.temporaryDeployment]);
    await waitFor(async () => (await deploymentsEver())[0]?.state === 'DELETED', 10_000);
    expect(await records()).toEqual([]);
  });

  it('a job deleted while it waits in PENDING releases the temporary deployment it asked for', async () => {
    // Replicas that take ten minutes to schedule: the job stays PENDING.
    await setup({ simulated: { delays: { schedulingMs: 600_000 } } });
    const client = new EchoClient();
    startWorkers(client);
    const job = await tg.services.batchInferenceJobs.create(admin, account, { model, inputDatasetId: 'in' }, 'gone');
    await waitFor(async () => (await deploymentsEver()).length === 1, 10_000);
    expect((await tg.services.batchInferenceJobs.get(admin, job.name!)).state).toBe('JOB_STATE_PENDING');
    await tg.services.batchInferenceJobs.delete(admin, job.name!);
    await waitFor(async () => ['DELETING', 'DELETED'].includes(String((await deploymentsEver())[0]?.state)), 10_000);
    expect(await deploymentsEver()).toHaveLength(1);
    expect(client.calls).toBe(0);
  });

  it('a job cancelled in PENDING, and one failed in PENDING (its deployment deleted), release their temporary deployments', async () => {
    await setup({ simulated: { delays: { schedulingMs: 600_000 } } });
    startWorkers(new EchoClient());
    const jobs = tg.services.batchInferenceJobs;
    const cancelled = await jobs.create(admin, account, { model, inputDatasetId: 'in' }, 'cancelled');
    await waitFor(async () => (await deploymentsEver()).length === 1, 10_000);
    const [first] = await deploymentsEver();
    expect((await jobs.get(admin, cancelled.name!)).state).toBe('JOB_STATE_PENDING');
    await jobs.cancel(admin, cancelled.name!);
    await waitFor(async () => ['DELETING', 'DELETED'].includes(String((await tg.services.deployments.get(admin, String(first!.name))).state)), 10_000);
    await waitFor(async () => (await records()).length === 0, 10_000);

    const failed = await jobs.create(admin, account, { model, inputDatasetId: 'in' }, 'failed');
    await waitFor(async () => (await deploymentsEver()).length === 2, 10_000);
    const second = (await deploymentsEver()).find((d) => d.name !== first!.name)!;
    await tg.services.deployments.delete(admin, String(second.name), { ignoreChecks: true });
    await waitFor(async () => (await jobs.get(admin, failed.name!)).state === 'JOB_STATE_FAILED', 10_000);
    expect((await jobs.get(admin, failed.name!)).status).toMatchObject({ code: 'FAILED_PRECONDITION', message: expect.stringContaining(String(second.name)) });
    await waitFor(async () => (await records()).length === 0, 10_000);
    expect(await deploymentsEver()).toHaveLength(2);
  });

  it('a running job scales its deployment up again when it is scaled to zero under it (another instance\'s autoscaler)', async () => {
    await setup();
    const own = await tg.services.deployments.create(admin, account, { baseModel: model, minReplicaCount: 0, maxReplicaCount: 2 }, { deploymentId: 'own' });
    const client = new EchoClient(6);
    startWorkers(client, { capacityKeepMs: 20 });
    const job = await tg.services.batchInferenceJobs.create(admin, account, { model, inputDatasetId: 'in' }, 'kept');
    await waitFor(() => client.calls > 6, 10_000);
    expect((await tg.services.batchInferenceJobs.get(admin, job.name!)).state).toBe('JOB_STATE_RUNNING');
    await tg.services.deployments.scale(admin, own.name!, 0);
    await waitFor(async () => ((await tg.services.deployments.get(admin, own.name!)).desiredReplicaCount ?? 0) >= 1, 10_000);
    client.release();
    await waitFor(async () => (await tg.services.batchInferenceJobs.get(admin, job.name!)).state === 'JOB_STATE_COMPLETED', 10_000);
    expect([...client.deployments]).toEqual([own.name]);
    expect(await deploymentsEver()).toHaveLength(1);
  });
});
