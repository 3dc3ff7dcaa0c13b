import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { account, baseModelBody, startHarness, type Harness } from './harness.js';
import { batchGatewayPlugins } from './batch-inference-scenario.js';
import {
  chat, createHarborEvaluator, createJob, ended, metricsOf, modelName, pollJob, uploadRlDataset, v1, type Job,
} from './rft-scenario.js';

/**
 * Reinforcement fine-tuning jobs over HTTP on the embedded gateway (memory storage, queue workers,
 * simulated GPUX replicas running reference engines, the reference trainer): the toy task of the
 * reference trainer (reward 1 when the answer mentions a harbor).
 */
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ plugins: batchGatewayPlugins(memoryStorage()) });
  expect((await h.call('POST', `${v1}/models`, { body: { modelId: 'base', model: baseModelBody({}) } })).status).toBe(200);
  await createHarborEvaluator(h, 'harbor');
  await uploadRlDataset(h, 'places', 4);
}, 60_000);
afterAll(async () => h?.close());

const toy = { dataset: 'places', evaluator: `accounts/${account}/evaluators/harbor`, inferenceParameters: { responseCandidatesCount: 8, temperature: 1, maxOutputTokens: 48 } };

describe('reinforcement fine-tuning jobs over HTTP', () => {
  it('trains the toy task: reward rises in outputMetrics while it runs, the output add-on is READY and answers differently from the base', async () => {
    const name = await createJob(h, 'toy', { ...toy, trainingConfig: { baseModel: modelName('base'), epochs: 4, learningRate: 10, loraRank: 4, outputModel: modelName('harbor-lora') } });
    const seen: Job[] = [];
    const done = await pollJob(h, name, ended, seen);
    expect(done.state, JSON.stringify(done.status)).toBe('JOB_STATE_COMPLETED');
    const states = new Set(seen.map((j) => j.state));
    for (const state of ['JOB_STATE_PENDING', 'JOB_STATE_RUNNING']) expect(states, [...states].join()).toContain(state);
    // The reward curve was visible while the job ran, one epoch at a time.
    const running = seen.filter((j) => j.state === 'JOB_STATE_RUNNING').map((j) => metricsOf(j).rewardCurve.length);
    expect(Math.max(...running)).toBeGreaterThanOrEqual(1);
    const metrics = metricsOf(done);
    expect(metrics).toMatchObject({ steps: 4, trainer: 'reference' });
    const curve = metrics.rewardCurve.map((e) => e.trainReward ?? 0);
    expect(curve).toHaveLength(4);
    expect(curve[3]!).toBeGreaterThan(curve[0]!);
    expect(done.jobProgress).toMatchObject({ totalInputRequests: 128, totalProcessedRequests: 128, percent: 100, epoch: 4 });
    expect(Object.keys(done.acceleratorSeconds as Record<string, string>)).toEqual(['REFERENCE_CPU']);
    expect(typeof done.completedTime).toBe('string');

    const output = (await h.call('GET', `${v1}/models/harbor-lora`)).body;
    expect(output).toMatchObject({ kind: 'HUB_PEFT_ADDON', state: 'READY', fineTuningJob: name, peftDetails: { baseModel: modelName('base'), r: 4, targetModules: ['lm_head'] } });
    // The policy add-ons and the temporary deployment are gone.
    const models = (await h.call<{ models: { name: string }[] }>('GET', `${v1}/models?pageSize=100`)).body.models.map((m) => m.name);
    expect(models.filter((m) => m.includes('/rft-'))).toEqual([]);
    const deployments = (await h.call<{ deployments: { name: string; state: string }[] }>('GET', `${v1}/deployments?pageSize=100`)).body.deployments ?? [];
    expect(deployments.filter((d) => d.state !== 'DELETED' && d.state !== 'DELETING')).toEqual([]);

    // Deployed as an add-on, it mentions harbors more often than the base model does.
    const dep = await h.call('POST', `${v1}/deployments?deploymentId=serve`, { body: { baseModel: modelName('base'), acceleratorType: 'GPUX_H100_80GB', minReplicaCount: 1, enableAddons: true } });
    expect(dep.status, JSON.stringify(dep.body)).toBe(200);
    const deployed = await h.call('POST', `${v1}/deployedModels?deployedModelId=harbor-on-serve`, { body: { model: modelName('harbor-lora'), deployment: `accounts/${account}/deployments/serve` } });
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(200);
    await pollUntil(async () => (await h.call('GET', `${v1}/deployedModels/harbor-on-serve`)).body.state === 'DEPLOYED');
    let trained = 0;
    let base = 0;
    let differ = 0;
    for (let seed = 1; seed <= 16; seed += 1) {
      const a = await chat(h, modelName('harbor-lora'), seed);
      const b = await chat(h, `${modelName('base')}#accounts/${account}/deployments/serve`, seed);
      if (/\bharbor\b/i.test(a)) trained += 1;
      if (/\bharbor\b/i.test(b)) base += 1;
      if (a !== b) differ += 1;
    }
    expect(differ).toBeGreaterThan(0);
    expect(trained).toBeGreaterThan(base);
  }, 120_000);

  it(':cancel then :resume continues from the checkpoint: every epoch and step once, no rollout counted twice', async () => {
    const name = await createJob(h, 'again', { ...toy, trainingConfig: { baseModel: modelName('base'), epochs: 5, learningRate: 10, loraRank: 4 } });
    await pollJob(h, name, (job) => metricsOf(job).steps >= 2 || ended(job));
    const cancel = await h.call('POST', `/v1/${name}:cancel`, { body: {} });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    expect(cancel.body).toEqual({});
    const cancelled = await pollJob(h, name, ended);
    expect(cancelled.state).toBe('JOB_STATE_CANCELLED');
    expect(cancelled.acceleratorSeconds).toBeDefined();
    const stepsAtCancel = metricsOf(cancelled).steps;
    expect(stepsAtCancel).toBeGreaterThanOrEqual(2);
    expect(stepsAtCancel).toBeLessThan(5);
    expect(cancelled.jobProgress?.totalProcessedRequests).toBe(stepsAtCancel * 32);

    const resumed = await h.call('POST', `/v1/${name}:resume`, { body: {} });
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(resumed.body).toMatchObject({ name, state: 'JOB_STATE_PENDING' });
    const done = await pollJob(h, name, ended);
    expect(done.state, JSON.stringify(done.status)).toBe('JOB_STATE_COMPLETED');
    const metrics = metricsOf(done);
    expect(metrics.steps).toBe(5);
    expect(metrics.rewardCurve.map((e) => e.epoch)).toEqual([1, 2, 3, 4, 5]);
    expect(done.jobProgress).toMatchObject({ totalInputRequests: 160, totalProcessedRequests: 160 });
    // A finished job is final.
    expect((await h.call('POST', `/v1/${name}:resume`, { body: {} })).status).toBe(400);
    expect((await h.call('POST', `/v1/${name}:cancel`, { body: {} })).status).toBe(400);
  }, 120_000);

  it('runs a dataset of 1,000 rows in chunks of chunkSize (a step each) and one of 250 rows in a single chunk', async () => {
    await uploadRlDataset(h, 'thousand', 1000);
    await uploadRlDataset(h, 'quarter', 250);
    const params = { evaluator: `accounts/${account}/evaluators/harbor`, inferenceParameters: { responseCandidatesCount: 2, maxOutputTokens: 16 }, maxConcurrentRollouts: 32 };
    const big = await createJob(h, 'thousand', { ...params, dataset: 'thousand', chunkSize: 300, trainingConfig: { baseModel: modelName('base'), learningRate: 10, loraRank: 4 } });
    const small = await createJob(h, 'quarter', { ...params, dataset: 'quarter', chunkSize: 100, trainingConfig: { baseModel: modelName('base'), learningRate: 10, loraRank: 4 } });
    const seenBig: Job[] = [];
    const bigDone = await pollJob(h, big, ended, seenBig, 120_000);
    const smallDone = await pollJob(h, small, ended, [], 120_000);
    expect(bigDone.state, JSON.stringify(bigDone.status)).toBe('JOB_STATE_COMPLETED');
    expect(smallDone.state, JSON.stringify(smallDone.status)).toBe('JOB_STATE_COMPLETED');
    expect(metricsOf(bigDone).steps).toBe(4);
    expect(metricsOf(smallDone).steps).toBe(1);
    // Progress moved chunk by chunk: 600, 1200, 1800, then 2000 rollouts.
    const processed = [...new Set(seenBig.map((j) => j.jobProgress?.totalProcessedRequests ?? 0))].filter((n) => n > 0);
    for (const n of processed) expect([600, 1200, 1800, 2000]).toContain(n);
    expect(bigDone.jobProgress).toMatchObject({ totalInputRequests: 2000, totalProcessedRequests: 2000 });
  }, 240_000);

  it('fails clearly: a dataset that is not RL fails in VALIDATING; create refuses a missing evaluator or base model', async () => {
    const bad = `{"messages":[{"role":"user","content":"hi"}]}\n{"prompt":"no messages"}\n`;
    const { uploadJsonl } = await import('./batch-inference-scenario.js');
    await uploadJsonl(h, 'not-rl', bad);
    const name = await createJob(h, 'bad-rows', { ...toy, dataset: 'not-rl', trainingConfig: { baseModel: modelName('base') } });
    const failed = await pollJob(h, name, ended);
    expect(failed).toMatchObject({ state: 'JOB_STATE_FAILED', status: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('row 2: has no "messages"') } });
    const noEvaluator = await h.call('POST', `${v1}/reinforcementFineTuningJobs`, { body: { ...toy, evaluator: `accounts/${account}/evaluators/none`, trainingConfig: { baseModel: modelName('base') } } });
    expect(noEvaluator).toMatchObject({ status: 400, body: { code: 3, message: expect.stringContaining('evaluator') } });
    const noBase = await h.call('POST', `${v1}/reinforcementFineTuningJobs`, { body: toy });
    expect(noBase).toMatchObject({ status: 400, body: { code: 3, message: expect.stringContaining('trainingConfig.baseModel') } });
  }, 60_000);
});

async function pollUntil(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
