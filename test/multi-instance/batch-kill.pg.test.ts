import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKillRig, type Fleet, type KillRig } from './fleet.js';

/**
 * The batch kill test: three gateway processes on one PostgreSQL schema run batch jobs against one
 * reference engine while, every few seconds, one process is SIGKILLed and started again (every other
 * kill hits the process holding the main job's lease, the others a random one). A job of a few thousand
 * rows completes with every input row exactly once in its output (results + errors) and counters equal
 * to the files; a job cancelled under the kills keeps each row it answered once; a job deleted under the
 * kills leaves no run record and no chunk files. Loopback only; needs a real server (processes cannot
 * share PGlite): skipped without DATABASE_URL.
 */
const databaseUrl = process.env.DATABASE_URL || undefined;

const ROWS = 3000;
const PROCESSES = 3;
const account = 'acme';
const apiKey = 'batch-kill-admin-key-0123456789';
const v1 = `/v1/accounts/${account}`;
const hostScript = fileURLToPath(new URL('./batch-host.ts', import.meta.url));

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type Json = Record<string, unknown>;

/** The input: ROWS lines, every 500th not JSON and every 250th (offset 3) with an `n` the engine refuses. */
function inputRows(): { jsonl: string; ids: string[] } {
  const lines: string[] = [];
  const ids: string[] = [];
  for (let i = 1; i <= ROWS; i += 1) {
    if (i % 500 === 0) {
      lines.push(`{"custom_id": "broken-${i}", "body": `);
      continue;
    }
    ids.push(`row-${i}`);
    const body = i % 250 === 3 ? { messages: [{ role: 'user', content: `q ${i}` }], n: 17 } : { messages: [{ role: 'user', content: `question ${i}` }] };
    lines.push(JSON.stringify({ custom_id: `row-${i}`, method: 'POST', url: '/v1/chat/completions', body }));
  }
  return { jsonl: `${lines.join('\n')}\n`, ids };
}

describe.skipIf(databaseUrl === undefined)('batch jobs on three gateway processes while one is SIGKILLed every few seconds', () => {
  let rig: KillRig;
  let fleet: Fleet;

  beforeAll(async () => {
    // A little latency per row so the job spans several kills; 2% of rows refused (400: failed rows, not retried).
    rig = await startKillRig({
      databaseUrl: databaseUrl!, prefix: 'berth_batch_kill', hostScript, apiKey, account,
      engine: { speed: { timeToFirstTokenMs: 15 }, faults: { errorRate: 0.02, errorStatus: 400 } },
    });
    fleet = rig.fleet;
    // Started together: migrations and the bootstrap admin must each happen once.
    await Promise.all(Array.from({ length: PROCESSES }, (_, slot) => fleet.start(slot)));
  }, 150_000);

  afterAll(async () => {
    await rig?.close();
  });

  /** Every line of the dataset's files, by kind (`results` or `errors`, over split parts too). */
  const download = async (dataset: string): Promise<{ results: Json[]; errors: Json[] }> => {
    const endpoint = await fleet.call('POST', `${v1}/datasets/${dataset}:getDownloadEndpoint`, {});
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(200);
    const files = { results: [] as Json[], errors: [] as Json[] };
    for (const [file, url] of Object.entries(endpoint.body.filenameToSignedUrls as Record<string, string>)) {
      const kind = /^(results|errors)(-\d+)?\.jsonl$/.exec(file)?.[1] as 'results' | 'errors' | undefined;
      expect(kind, file).toBeDefined();
      const text = await (await fetch(url)).text();
      for (const line of text.split('\n')) if (line !== '') files[kind!].push(JSON.parse(line) as Json);
    }
    return files;
  };

  const progressOf = (job: Json) => (job.jobProgress ?? {}) as Record<string, number>;

  /** Each output line's input row once; answers the rows. */
  const rowsOnce = (files: { results: Json[]; errors: Json[] }): number[] => {
    const rows = [...files.results, ...files.errors].map((line) => Number(line.row));
    expect(rows.length - new Set(rows).size, 'output lines of one input row').toBe(0);
    return rows;
  };

  it('completes a job with every row exactly once and counters equal to the output; cancel and delete hold too', async () => {
    const { jsonl, ids } = inputRows();
    const model = await fleet.call('POST', `${v1}/models`, {
      modelId: 'kill-model',
      model: { kind: 'HUB_BASE_MODEL', displayName: 'Kill test', baseModelDetails: { parameterCount: '8000000000', checkpointFormat: 'HUB', hubFiles: ['model.safetensors'] } },
    });
    expect(model.status, JSON.stringify(model.body)).toBe(200);
    expect((await fleet.call('POST', `${v1}/datasets`, { datasetId: 'kill-in', dataset: { displayName: 'kill input' } })).status).toBe(200);
    const uploaded = await fleet.upload(account, 'kill-in', jsonl);
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(200);

    const create = async (id: string): Promise<string> => {
      const created = await fleet.call('POST', `${v1}/batchInferenceJobs?batchInferenceJobId=${id}`, {
        model: `accounts/${account}/models/kill-model`, inputDatasetId: 'kill-in', outputDatasetId: `${id}-out`, inferenceParameters: { maxTokens: 4 },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      return String(created.body.name);
    };
    const main = await create('kill-main');
    const cancelled = await create('kill-cancel');
    const deleted = await create('kill-delete');

    const { kills, stop } = rig.killer(main, { minMs: 2000, spreadMs: 2000, note: () => ({}) });

    const until = Date.now() + 240_000;
    let job: Json = {};
    let processed = 0;
    let cancelSent = false;
    let deleteSent = false;
    try {
      for (;;) {
        if (Date.now() > until) throw new Error(`the job stayed ${String(job.state)} at ${JSON.stringify(job.jobProgress)}`);
        await sleep(200);
        job = (await fleet.call('GET', `/v1/${main}`)).body;
        const now = progressOf(job).totalProcessedRequests ?? 0;
        expect(now, 'progress never moves backwards').toBeGreaterThanOrEqual(processed);
        processed = now;
        if (!cancelSent && (progressOf((await fleet.call('GET', `/v1/${cancelled}`)).body).totalProcessedRequests ?? 0) > 0) {
          const answer = await fleet.call('POST', `/v1/${cancelled}:cancel`, {});
          // 400 only when a first try was applied and its answer lost with its process.
          expect([200, 400], JSON.stringify(answer.body)).toContain(answer.status);
          cancelSent = true;
        }
        if (!deleteSent && (progressOf((await fleet.call('GET', `/v1/${deleted}`)).body).totalProcessedRequests ?? 0) > 0) {
          const answer = await fleet.call('DELETE', `/v1/${deleted}`);
          expect([200, 404], JSON.stringify(answer.body)).toContain(answer.status);
          deleteSent = true;
        }
        if (job.state === 'JOB_STATE_COMPLETED' || job.state === 'JOB_STATE_FAILED') break;
      }
      // The cancelled job's kept rows are written by a worker after the cancel: wait for its output, still under kills.
      for (;;) {
        if (Date.now() > until) throw new Error('the cancelled job never wrote its output');
        if ((await fleet.call('GET', `${v1}/datasets/kill-cancel-out`)).body.state === 'READY') break;
        await sleep(200);
      }
    } finally {
      await stop();
    }
    const context = () => `kills ${JSON.stringify(kills)}\n${fleet.logs()}`;

    // The main job: completed, every input row once, counters equal to the files.
    expect(job.state, `${JSON.stringify(job.status)}\n${context()}`).toBe('JOB_STATE_COMPLETED');
    expect(kills.filter((k) => k.holder).length, 'kills of the process running the job').toBeGreaterThan(0);
    const attempt = Number((await rig.pool.query(`SELECT attempt FROM "${rig.schema}".berth_jobs WHERE payload->>'name' = $1`, [main])).rows[0]?.attempt);
    expect(attempt, 'queue attempts of the job (a kill of its holder costs one)').toBeGreaterThan(1);
    const files = await download('kill-main-out');
    const rows = rowsOnce(files);
    expect(rows.sort((a, b) => a - b)).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
    const answeredIds = [...files.results, ...files.errors].map((line) => line.custom_id).filter((id) => id !== null);
    expect(answeredIds.sort()).toEqual([...ids].sort());
    const progress = progressOf(job);
    expect(progress).toMatchObject({
      totalInputRequests: ROWS, totalProcessedRequests: ROWS, successfullyProcessedRequests: files.results.length,
      failedRequests: files.errors.length, outputRows: files.results.length, percent: 100,
    });
    expect(files.errors.filter((e) => (e.error as Json).code === 'invalid_row')).toHaveLength(ROWS / 500);
    // The engine's refusals (n = 17 and the injected 2%) are errors too, answered once like any row.
    expect(files.errors.filter((e) => e.status_code === 400).length).toBeGreaterThanOrEqual(ROWS / 250);
    const usage = files.results.reduce((sum, r) => sum + Number(((r.response as Json).body as { usage: { prompt_tokens: number } }).usage.prompt_tokens), 0);
    expect(progress.inputTokens).toBe(usage);
    expect((await fleet.call('GET', `${v1}/datasets/kill-main-out`)).body).toMatchObject({ state: 'READY', exampleCount: String(files.results.length), sourceJobName: main });

    // The cancelled job: stopped short, each answered row once, counters equal to its files.
    const cancelledJob = (await fleet.call('GET', `/v1/${cancelled}`)).body;
    expect(cancelledJob.state).toBe('JOB_STATE_CANCELLED');
    const kept = await download('kill-cancel-out');
    const keptRows = rowsOnce(kept);
    expect(keptRows.length).toBeLessThan(ROWS);
    expect(progressOf(cancelledJob)).toMatchObject({
      totalProcessedRequests: keptRows.length, successfullyProcessedRequests: kept.results.length, failedRequests: kept.errors.length,
    });

    // The deleted job: gone, and (once a worker noticed) its run record and chunk files too.
    expect((await fleet.call('GET', `/v1/${deleted}`)).status).toBe(404);
    const leftovers = async () => Number((await rig.pool.query(
      `SELECT (SELECT count(*) FROM "${rig.schema}".berth_blobs WHERE key LIKE 'batch-jobs/${account}/kill-delete/%')
            + (SELECT count(*) FROM "${rig.schema}".berth_resources WHERE name = $1) AS n`, [`accounts/${account}/batchInferenceJobRuns/kill-delete`],
    )).rows[0]?.n);
    const cleanUntil = Date.now() + 20_000;
    while ((await leftovers()) > 0 && Date.now() < cleanUntil) await sleep(200);
    expect(await leftovers(), context()).toBe(0);
    // Chunk files of the finished jobs are removed once their output is written.
    expect(Number((await rig.pool.query(`SELECT count(*) AS n FROM "${rig.schema}".berth_blobs WHERE key LIKE 'batch-jobs/%'`)).rows[0]?.n)).toBe(0);
  }, 330_000);
});
