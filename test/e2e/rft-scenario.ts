import { expect } from 'vitest';
import { account, adminKey, type Harness } from './harness.js';
import { uploadJsonl } from './batch-inference-scenario.js';

/**
 * Reinforcement fine-tuning over HTTP: the toy task of the reference trainer (reward 1 when the answer
 * mentions a harbor), an evaluator, an RL dataset, jobs polled until they end.
 */
export const v1 = `/v1/accounts/${account}`;
export const modelName = (id: string) => `accounts/${account}/models/${id}`;

export type Job = Record<string, unknown> & { state: string; outputMetrics?: string; jobProgress?: Record<string, number>; status?: { message?: string } };

export interface RewardCurve {
  steps: number;
  rewardCurve: { epoch: number; trainReward?: number; evaluationReward?: number }[];
}

export function metricsOf(job: Job): RewardCurve {
  return JSON.parse(job.outputMetrics ?? '{"steps":0,"rewardCurve":[]}') as RewardCurve;
}

/** A JavaScript evaluator of one criterion (`criterion`, whose `main.js` is `mainJs`); waits until it is ACTIVE. */
export async function createCodeEvaluator(h: Harness, id: string, criterion: string, mainJs: string, displayName?: string): Promise<void> {
  const created = await h.call('POST', `${v1}/evaluators`, {
    body: {
      evaluatorId: id,
      evaluator: {
        ...(displayName !== undefined ? { displayName } : {}),
        criteria: [{ name: criterion, type: 'CODE_SNIPPETS', codeSnippets: { language: 'javascript', fileContents: { 'main.js': mainJs } } }],
      },
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const end = Date.now() + 20_000;
  for (;;) {
    const got = await h.call('GET', `${v1}/evaluators/${id}`);
    if (got.body.state === 'ACTIVE') return;
    if (Date.now() > end) throw new Error(`evaluator ${id} stayed ${String(got.body.state)}: ${JSON.stringify(got.body.status)}`);
    await new Promise((r) => setTimeout(r, 30));
  }
}

/** A JavaScript evaluator: 1 when the answer mentions a harbor, else 0; waits until it is ACTIVE. */
export function createHarborEvaluator(h: Harness, id: string): Promise<void> {
  return createCodeEvaluator(h, id, 'harbor', 'export function evaluate(input) { return /\\bharbor\\b/i.test(input.answer) ? 1 : 0; }', 'Harbor');
}

/** Uploads an RL dataset of `rows` prompts (ground truth "harbor"). */
export async function uploadRlDataset(h: Harness, id: string, rows: number): Promise<void> {
  const lines = Array.from({ length: rows }, (_, i) => JSON.stringify({ messages: [{ role: 'user', content: `Describe place number ${i}.` }], ground_truth: 'harbor' }));
  expect(await uploadJsonl(h, id, `${lines.join('\n')}\n`)).toMatchObject({ state: 'READY' });
}

export async function createJob(h: Harness, id: string, body: Record<string, unknown>): Promise<string> {
  const created = await h.call('POST', `${v1}/reinforcementFineTuningJobs?reinforcementFineTuningJobId=${id}`, { body });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  expect(created.body.state).toBe('JOB_STATE_CREATING');
  return String(created.body.name);
}

/** Polls the job until `done` says so; `seen` collects every job read (progress never moves backwards). */
export async function pollJob(h: Harness, name: string, done: (job: Job) => boolean, seen: Job[] = [], ms = 60_000): Promise<Job> {
  const end = Date.now() + ms;
  let processed = 0;
  for (;;) {
    const job = (await h.call('GET', `/v1/${name}`)).body as Job;
    seen.push(job);
    const now = job.jobProgress?.totalProcessedRequests ?? 0;
    expect(now).toBeGreaterThanOrEqual(processed);
    processed = now;
    if (done(job)) return job;
    if (Date.now() > end) throw new Error(`${name} stayed ${job.state}: ${JSON.stringify(job.status)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const ended = (job: Job) => ['JOB_STATE_COMPLETED', 'JOB_STATE_FAILED', 'JOB_STATE_EARLY_STOPPED', 'JOB_STATE_CANCELLED', 'JOB_STATE_PAUSED'].includes(job.state);

/** One chat completion's text through the inference API. */
export async function chat(h: Harness, model: string, seed: number): Promise<string> {
  const response = await fetch(`${h.url}/inference/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Describe place number 0.' }], max_tokens: 48, seed, temperature: 1 }),
  });
  const body = (await response.json()) as { choices?: { message: { content: string } }[] };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.choices?.[0]?.message.content ?? '';
}
