import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKillRig, type Fleet, type KillRig } from './fleet.js';

/**
 * The fine-tuning kill test: three gateway processes on one PostgreSQL schema run a reinforcement
 * fine-tuning job (the reference trainer, rollouts to one reference engine) while, every few seconds, one
 * process is SIGKILLed and started again; every other kill hits the process holding the job's lease,
 * mid-chunk. The job completes with each of its steps applied once: every step's checkpoint is the same
 * however often the step was asked (after a kill between the trainer's answer and the commit), each made
 * from the step before, and no rollout is counted twice. Loopback only; needs a real server (processes
 * cannot share PGlite): skipped without DATABASE_URL.
 */
const databaseUrl = process.env.DATABASE_URL || undefined;

const ROWS = 400;
const CHUNK = 100;
const EPOCHS = 2;
const CANDIDATES = 4;
const STEPS = (ROWS / CHUNK) * EPOCHS;
const PROCESSES = 3;
/** Kills in all, spaced 4–7 s apart: enough to hit the lease holder mid-chunk several times, bounded so the job can finish. */
const MAX_KILLS = 6;
const account = 'acme';
const apiKey = 'rft-kill-admin-key-0123456789';
const v1 = `/v1/accounts/${account}`;
const hostScript = fileURLToPath(new URL('./rft-host.ts', import.meta.url));

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type Json = Record<string, unknown>;

describe.skipIf(databaseUrl === undefined)('a fine-tuning job on three gateway processes while one is SIGKILLed every few seconds', () => {
  let rig: KillRig;
  let fleet: Fleet;

  beforeAll(async () => {
    // A little latency per rollout so a chunk spans a kill.
    rig = await startKillRig({
      databaseUrl: databaseUrl!, prefix: 'berth_rft_kill', hostScript, apiKey, account, engine: { speed: { timeToFirstTokenMs: 15 } },
    });
    fleet = rig.fleet;
    for (let slot = 0; slot < PROCESSES; slot += 1) await fleet.start(slot);
  }, 400_000);

  afterAll(async () => {
    await rig?.close();
  });

  it('completes with every step applied once, each from the step before, and every rollout counted once', async () => {
    const base = `accounts/${account}/models/kill-base`;
    const ok = async (method: string, path: string, body?: unknown): Promise<Json> => {
      const answer = await fleet.call(method, path, body);
      expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(200);
      return answer.body;
    };
    await ok('POST', `${v1}/models`, {
      modelId: 'kill-base', model: { kind: 'HUB_BASE_MODEL', displayName: 'Kill test', baseModelDetails: { parameterCount: '8000000000', checkpointFormat: 'HUB', hubFiles: ['model.safetensors'] } },
    });
    // The deployment the policy add-ons are deployed on (the processes' directory sends it to the engine).
    await ok('POST', `${v1}/deployments?deploymentId=engine`, { baseModel: base, enableAddons: true });
    await ok('POST', `${v1}/evaluators`, { evaluatorId: 'harbor', evaluator: { criteria: [{ name: 'harbor', type: 'REGEX', regex: { pattern: '\\bharbor\\b', flags: 'i' } }] } });
    for (const until = Date.now() + 20_000; (await ok('GET', `${v1}/evaluators/harbor`)).state !== 'ACTIVE';) {
      if (Date.now() > until) throw new Error('the evaluator never became ACTIVE');
      await sleep(100);
    }
    await ok('POST', `${v1}/datasets`, { datasetId: 'kill-rl', dataset: { displayName: 'kill prompts' } });
    const rows = Array.from({ length: ROWS }, (_, i) => JSON.stringify({ messages: [{ role: 'user', content: `Describe place ${i}.` }], ground_truth: 'harbor' }));
    const uploaded = await fleet.upload(account, 'kill-rl', `${rows.join('\n')}\n`);
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(200);
    const created = await ok('POST', `${v1}/reinforcementFineTuningJobs?reinforcementFineTuningJobId=kill-job`, {
      dataset: 'kill-rl', evaluator: `accounts/${account}/evaluators/harbor`, chunkSize: CHUNK, maxConcurrentRollouts: 4,
      trainingConfig: { baseModel: base, epochs: EPOCHS, learningRate: 10, loraRank: 4, outputModel: `accounts/${account}/models/kill-lora` },
      inferenceParameters: { responseCandidatesCount: CANDIDATES, maxOutputTokens: 16 },
    });
    const name = String(created.name);

    let job: Json = {};
    const stepsOf = (j: Json) => Number((JSON.parse(String(j.outputMetrics ?? '{"steps":0}')) as { steps: number }).steps);
    const { kills, stop } = rig.killer(name, { minMs: 4000, spreadMs: 3000, maxKills: MAX_KILLS, note: () => ({ state: job.state, steps: stepsOf(job) }) });

    const until = Date.now() + 400_000;
    let processed = 0;
    try {
      for (;;) {
        if (Date.now() > until) throw new Error(`the job stayed ${String(job.state)} at ${JSON.stringify(job.jobProgress)}`);
        await sleep(200);
        job = (await fleet.call('GET', `/v1/${name}`)).body;
        const now = Number((job.jobProgress as Json | undefined)?.totalProcessedRequests ?? 0);
        expect(now, 'progress never moves backwards').toBeGreaterThanOrEqual(processed);
        processed = now;
        if (['JOB_STATE_COMPLETED', 'JOB_STATE_FAILED', 'JOB_STATE_PAUSED'].includes(String(job.state))) break;
      }
    } finally {
      await stop();
    }
    const context = () => `kills ${JSON.stringify(kills)}\n${fleet.logs()}`;
    expect(job.state, `${JSON.stringify(job.status)}\n${context()}`).toBe('JOB_STATE_COMPLETED');
    // Kills hit the process running the job while it trained, and cost the job's queue work attempts.
    expect(kills.filter((k) => k.holder && k.state === 'JOB_STATE_RUNNING').length, context()).toBeGreaterThan(0);
    const attempt = Number((await rig.pool.query(`SELECT max(attempt) AS a FROM "${rig.schema}".berth_jobs WHERE payload->>'name' = $1`, [name])).rows[0]?.a);
    expect(attempt, 'queue attempts of the job').toBeGreaterThan(1);

    // Each step: one checkpoint however often it was asked, made from the step before; all steps, once each.
    const { rows: logged } = await rig.pool.query(`SELECT key FROM "${rig.schema}".berth_blobs WHERE key LIKE 'rft-kill-log/kill-job/%'`);
    const byStep = new Map<number, { from: Set<number>; checkpoints: Set<string>; answers: number }>();
    for (const { key } of logged as { key: string }[]) {
      const [, , step, from, checkpoint] = key.split('/');
      const entry = byStep.get(Number(step)) ?? { from: new Set<number>(), checkpoints: new Set<string>(), answers: 0 };
      entry.from.add(Number(from));
      entry.checkpoints.add(checkpoint!);
      entry.answers += 1;
      byStep.set(Number(step), entry);
    }
    expect([...byStep.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));
    for (const [step, entry] of byStep) {
      expect([...entry.from], `step ${step} starts from`).toEqual([step - 1]);
      expect(entry.checkpoints.size, `checkpoints of step ${step}`).toBe(1);
    }
    const metrics = JSON.parse(String(job.outputMetrics)) as { steps: number; rewardCurve: { epoch: number }[] };
    expect(metrics.steps).toBe(STEPS);
    expect(metrics.rewardCurve.map((e) => e.epoch)).toEqual([1, 2]);
    expect(job.jobProgress).toMatchObject({ totalInputRequests: ROWS * EPOCHS * CANDIDATES, totalProcessedRequests: ROWS * EPOCHS * CANDIDATES, percent: 100 });
    expect((await fleet.call('GET', `${v1}/models/kill-lora`)).body).toMatchObject({ kind: 'HUB_PEFT_ADDON', state: 'READY', fineTuningJob: name, peftDetails: { r: 4 } });
    // The policy add-ons are gone with the job's end.
    const policies = await rig.pool.query(`SELECT count(*) AS n FROM "${rig.schema}".berth_resources WHERE name LIKE $1`, [`accounts/${account}/models/rft-%`]);
    expect(Number(policies.rows[0]?.n), context()).toBe(0);
  }, 600_000);
});
