import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { account, startHarness, type Harness } from './harness.js';
import { batchGatewayPlugins, deployReady, runBatchScenario } from './batch-inference-scenario.js';

/** Batch inference jobs over HTTP on memory storage, against simulated GPUX replicas (reference engines on loopback). */
let h: Harness;
const v1 = `/v1/accounts/${account}`;

beforeAll(async () => {
  h = await startHarness({
    plugins: batchGatewayPlugins(memoryStorage()),
  });
  await deployReady(h, 'batchy');
}, 60_000);
afterAll(async () => h?.close());

describe('batch inference jobs over HTTP (memory)', () => {
  it('uploads a dataset, runs a job to COMPLETED, downloads results and errors: every row once, counters equal the files', async () => {
    await runBatchScenario(h, 'batchy', 'mem');
  }, 60_000);

  it('continues the finished job: only its 12 failed rows run again, into the continuation\'s own output dataset', async () => {
    const created = await h.call('POST', `${v1}/batchInferenceJobs?batchInferenceJobId=mem-again`, { body: { continuedFromJobName: `accounts/${account}/batchInferenceJobs/mem-job` } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({ model: `accounts/${account}/models/batchy`, inputDatasetId: `accounts/${account}/datasets/mem-batch-in` });
    let job = created.body;
    const until = Date.now() + 30_000;
    while (job.state !== 'JOB_STATE_COMPLETED' && job.state !== 'JOB_STATE_FAILED' && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      job = (await h.call('GET', `${v1}/batchInferenceJobs/mem-again`)).body;
    }
    expect(job.state, JSON.stringify(job.status)).toBe('JOB_STATE_COMPLETED');
    expect(job.outputDatasetId).toBe(`accounts/${account}/datasets/mem-again-output`);
    // The same rows fail again (the engine and the rows are unchanged): every one of them, and nothing else.
    expect(job.jobProgress).toMatchObject({ totalInputRequests: 12, totalProcessedRequests: 12, failedRequests: 12, outputRows: 0 });
  });

  it('refuses :cancel of a finished job and answers 404 for an unknown one; deletes a finished job', async () => {
    const list = await h.call<{ batchInferenceJobs: { name: string; state: string }[] }>('GET', `${v1}/batchInferenceJobs?filter=${encodeURIComponent('state = JOB_STATE_COMPLETED')}`);
    expect(list.status).toBe(200);
    const done = list.body.batchInferenceJobs[0]!;
    const cancel = await h.call('POST', `/v1/${done.name}:cancel`, { body: {} });
    expect(cancel.status).toBe(400);
    expect((await h.call('POST', `${v1}/batchInferenceJobs/nope:cancel`, { body: {} })).status).toBe(404);
    expect((await h.call('DELETE', `/v1/${done.name}`)).status).toBe(200);
    expect((await h.call('GET', `/v1/${done.name}`)).status).toBe(404);
  });
});
