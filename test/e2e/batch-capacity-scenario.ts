import { expect } from 'vitest';
import { account, baseModelBody, type Harness } from './harness.js';
import { downloadLines, uploadJsonl } from './batch-inference-scenario.js';

/** Capacity scenarios of batch jobs over HTTP (memory and PostgreSQL): scale from zero, temporary deployments, precision, duplicate custom_ids. */
const v1 = `/v1/accounts/${account}`;
type Body = Record<string, unknown>;

async function createModel(h: Harness, id: string): Promise<void> {
  const created = await h.call('POST', `${v1}/models`, { body: { modelId: id, model: baseModelBody({}) } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
}

async function waitDeployment(h: Harness, id: string, done: (d: Body) => boolean, what: string): Promise<Body> {
  const until = Date.now() + 20_000;
  for (;;) {
    const r = await h.call('GET', `${v1}/deployments/${id}`);
    if (done(r.body)) return r.body;
    if (Date.now() > until) throw new Error(`deployment ${id} never ${what}: ${JSON.stringify(r.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Deployments of `model` the API lists (with `showDeleted`, the deleted ones too). */
async function deploymentsOf(h: Harness, model: string, showDeleted = false): Promise<Body[]> {
  const filter = encodeURIComponent(`base_model = "accounts/${account}/models/${model}"`);
  const r = await h.call<{ deployments?: Body[] }>('GET', `${v1}/deployments?filter=${filter}${showDeleted ? '&showDeleted=true' : ''}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.deployments ?? [];
}

function rows(prefix: string, count: number): string {
  const lines = Array.from({ length: count }, (_, i) => JSON.stringify({ custom_id: `${prefix}-${i}`, body: { messages: [{ role: 'user', content: `q ${i}` }], max_tokens: 4 } }));
  return `${lines.join('\n')}\n`;
}

/** Creates a job and polls it to a final state; `onPoll` sees every state read. Answers the final job. */
async function runJob(h: Harness, id: string, body: Body, onPoll: (job: Body) => Promise<void> | void = () => undefined): Promise<Body> {
  const created = await h.call('POST', `${v1}/batchInferenceJobs?batchInferenceJobId=${id}`, { body });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  let job = created.body;
  const until = Date.now() + 45_000;
  while (!['JOB_STATE_COMPLETED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED'].includes(String(job.state))) {
    if (Date.now() > until) throw new Error(`job ${id} stayed ${String(job.state)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
    job = (await h.call('GET', `${v1}/batchInferenceJobs/${id}`)).body;
    await onPoll(job);
  }
  return job;
}

/**
 * A deployment scaled to zero: the job waits in PENDING while the deployment is scaled from zero (as
 * `:scale` would), then runs every row on it; no other deployment is made.
 */
export async function scaleFromZeroScenario(h: Harness, prefix: string): Promise<void> {
  const model = `${prefix}-cold`;
  await createModel(h, model);
  const dep = `${model}-dep`;
  const created = await h.call('POST', `${v1}/deployments?deploymentId=${dep}`, { body: { baseModel: `accounts/${account}/models/${model}`, acceleratorType: 'GPUX_H100_80GB', maxReplicaCount: 2 } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  await waitDeployment(h, dep, (d) => d.state === 'READY', 'became READY');
  expect((await h.call('PATCH', `${v1}/deployments/${dep}:scale`, { body: { replicaCount: 0 } })).status).toBe(200);
  await waitDeployment(h, dep, (d) => d.replicaCount === 0, 'scaled to zero');

  await uploadJsonl(h, `${model}-in`, rows('c', 20));
  const states = new Set<string>();
  const job = await runJob(h, `${model}-job`, { model: `accounts/${account}/models/${model}`, inputDatasetId: `${model}-in` }, (j) => void states.add(String(j.state)));
  expect(job.state, JSON.stringify(job.status)).toBe('JOB_STATE_COMPLETED');
  expect(states).toContain('JOB_STATE_PENDING');
  expect(job.jobProgress).toMatchObject({ totalInputRequests: 20, successfullyProcessedRequests: 20 });
  const after = (await h.call('GET', `${v1}/deployments/${dep}`)).body;
  expect(after.desiredReplicaCount).toBeGreaterThanOrEqual(1);
  expect((await deploymentsOf(h, model, true)).map((d) => d.name)).toEqual([`accounts/${account}/deployments/${dep}`]);
}

/**
 * A model with no deployment, two jobs created at once: they share one temporary deployment made from the
 * model's defaults, which is deleted when the second of them ends. Repeated custom_ids are failed rows.
 */
export async function temporaryDeploymentScenario(h: Harness, prefix: string): Promise<void> {
  const model = `${prefix}-bare`;
  await createModel(h, model);
  // 25 rows, of which 3 repeat an earlier custom_id.
  const jsonl = rows('t', 22) + ['t-3', 't-7', 't-3'].map((id) => JSON.stringify({ custom_id: id, body: { messages: [{ role: 'user', content: 'again' }] } })).join('\n');
  await uploadJsonl(h, `${model}-in`, `${jsonl}\n`);
  let mostAtOnce = 0;
  const watch = async () => {
    mostAtOnce = Math.max(mostAtOnce, (await deploymentsOf(h, model)).length);
  };
  const body = { model: `accounts/${account}/models/${model}`, inputDatasetId: `${model}-in` };
  const [first, second] = await Promise.all([runJob(h, `${model}-a`, body, watch), runJob(h, `${model}-b`, body, watch)]);
  for (const job of [first, second]) {
    expect(job.state, JSON.stringify(job.status)).toBe('JOB_STATE_COMPLETED');
    expect(job.jobProgress).toMatchObject({ totalInputRequests: 25, successfullyProcessedRequests: 22, failedRequests: 3 });
  }
  expect(mostAtOnce).toBe(1);
  const ever = await deploymentsOf(h, model, true);
  expect(ever).toHaveLength(1);
  expect(ever[0]).toMatchObject({ baseModel: `accounts/${account}/models/${model}`, precision: 'FP16', minReplicaCount: 0, maxReplicaCount: 1 });
  const temporary = String(ever[0]!.name).split('/').pop()!;
  await waitDeployment(h, temporary, (d) => d.state === 'DELETED', 'was deleted');
  expect(await deploymentsOf(h, model)).toEqual([]);

  const files = await downloadLines(h, String(first.outputDatasetId).split('/').pop()!);
  expect(files['results.jsonl']!.map((r) => r.custom_id)).toEqual(Array.from({ length: 22 }, (_, i) => `t-${i}`));
  expect(files['errors.jsonl']!.map((e) => [e.custom_id, e.row, (e.error as Body).code])).toEqual([
    ['t-3', 23, 'duplicate_custom_id'], ['t-7', 24, 'duplicate_custom_id'], ['t-3', 25, 'duplicate_custom_id'],
  ]);
}

/**
 * Precision: a job that names a precision the model's deployment does not serve gets a temporary
 * deployment at that precision (on an accelerator type that runs it), removed when the job ends; a job
 * that leaves precision out uses the model's deployment as it is.
 */
export async function precisionScenario(h: Harness, prefix: string): Promise<void> {
  const model = `${prefix}-prec`;
  await createModel(h, model);
  const dep = `${model}-dep`;
  const created = await h.call('POST', `${v1}/deployments?deploymentId=${dep}`, {
    body: { baseModel: `accounts/${account}/models/${model}`, acceleratorType: 'GPUX_H100_80GB', precision: 'BF16', minReplicaCount: 1 },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  await waitDeployment(h, dep, (d) => d.state === 'READY', 'became READY');
  await uploadJsonl(h, `${model}-in`, rows('p', 10));
  const base = { model: `accounts/${account}/models/${model}`, inputDatasetId: `${model}-in` };

  const loose = await runJob(h, `${model}-loose`, base);
  expect(loose.state, JSON.stringify(loose.status)).toBe('JOB_STATE_COMPLETED');
  expect(loose.precision).toBe('FP16');
  expect(await deploymentsOf(h, model, true)).toHaveLength(1);

  let temporary: Body | undefined;
  const strict = await runJob(h, `${model}-strict`, { ...base, precision: 'FP8' }, async () => {
    temporary ??= (await deploymentsOf(h, model)).find((d) => d.name !== `accounts/${account}/deployments/${dep}`);
  });
  expect(strict.state, JSON.stringify(strict.status)).toBe('JOB_STATE_COMPLETED');
  expect(strict.jobProgress).toMatchObject({ successfullyProcessedRequests: 10 });
  expect(temporary).toMatchObject({ precision: 'FP8' });
  await waitDeployment(h, String(temporary!.name).split('/').pop()!, (d) => d.state === 'DELETED', 'was deleted');
  expect((await deploymentsOf(h, model)).map((d) => d.name)).toEqual([`accounts/${account}/deployments/${dep}`]);
}
