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
