import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { batchInferenceJobServiceOver } from '../resources/batch-inference-jobs/batch-inference-job-fixtures.js';
import type { JsonObject } from '../contracts/json.js';
import { systemContext, type RequestContext } from '../contracts/request-context.js';
import { GatewayError, notFound, Code } from '../errors/index.js';
import type { Resolver } from '../kernel/container.js';
import { servingDirectoryToken } from '../kernel/tokens.js';
import type { Token } from '../kernel/token.js';
import type { ModelTarget, ServingDirectory } from '../ports/serving-directory.js';
import type { BatchInferenceJobService } from '../resources/batch-inference-jobs/batch-inference-job-service.js';
import type { BatchInferenceJob } from '../resources/batch-inference-jobs/batch-inference-job-schema.js';
import type { ChatCompletionCall, ChatCompletionOutcome, ChatModelClient, ChatStreamOutcome } from '../responses/model-client.js';
import { MemoryStorage } from '../storage-memory/index.js';
import { waitFor } from '../testing/queue-worker-scenarios.js';
import { QueueWorkerPool } from '../workers/queue-worker-pool.js';
import { BatchInferenceRunner, type BatchInferenceOptions } from './batch-runner.js';

const ctx: RequestContext = {
  requestId: 't', principal: { userName: 'accounts/acme/users/admin', accountId: 'acme', role: 'admin', email: 'admin@example.com' },
};
const model = 'accounts/acme/models/m';
const input = 'accounts/acme/datasets/in';

/** Answers each row from its last message; rows whose content starts with "bad" get a 400, "flaky" a 503 the first time. */
class ScriptedClient implements ChatModelClient {
  readonly sent: JsonObject[] = [];
  readonly flakySeen = new Set<string>();
  /** Whether rows starting "bad" are refused (a fixed model answers them). */
  failBad = true;
  /** Calls received (counted on arrival). */
  calls = 0;
  /** Calls after this many wait until {@link release} (or their abort). */
  pauseAfter = Infinity;
  private opened: () => void = () => {};
  private readonly gate = new Promise<void>((resolve) => (this.opened = resolve));

  release(): void {
    this.pauseAfter = Infinity;
    this.opened();
  }

  async complete(callCtx: RequestContext, call: ChatCompletionCall): Promise<ChatCompletionOutcome> {
    this.calls += 1;
    if (this.calls > this.pauseAfter) {
      await new Promise<void>((resolve, reject) => {
        void this.gate.then(resolve);
        callCtx.signal?.addEventListener('abort', () => reject(new GatewayError(Code.CANCELLED, 'cancelled')), { once: true });
      });
    }
    if (callCtx.signal?.aborted) throw new GatewayError(Code.CANCELLED, 'cancelled');
    this.sent.push(call.body);
    const messages = call.body.messages as { content: string }[];
    const content = messages[messages.length - 1]!.content;
    if (this.failBad && content.startsWith('bad')) return { ok: false, status: 400, error: { message: 'bad request', type: 'invalid_request_error', param: null, code: 'bad_row' } };
    if (content.startsWith('flaky') && !this.flakySeen.has(content)) {
      this.flakySeen.add(content);
      return { ok: false, status: 503, error: { message: 'busy', type: 'server_error', param: null, code: null } };
    }
    const n = typeof call.body.n === 'number' ? call.body.n : 1;
    return {
      ok: true,
      completion: {
        object: 'chat.completion', model,
        choices: Array.from({ length: n }, (_, index) => ({ index, message: { role: 'assistant', content: `echo ${content}` }, finish_reason: 'stop' })),
        usage: { prompt_tokens: 3, completion_tokens: 2 * n, total_tokens: 3 + 2 * n, prompt_tokens_details: { cached_tokens: 1 } },
      },
    };
  }

  async stream(): Promise<ChatStreamOutcome> {
    throw new Error('not used');
  }
}

const directory: ServingDirectory = {
  async resolve(_ctx, name): Promise<ModelTarget> {
    if (name !== model) throw notFound(name);
    return { accountId: 'acme', model, deployment: 'accounts/acme/deployments/d' };
  },
  async acquire() {
    throw new Error('not used');
  },
};

const resolver: Resolver = {
  resolve<T>(token: Token<T>): T {
    if (token === (servingDirectoryToken as Token<unknown>)) return directory as T;
    throw new Error(`unexpected token ${token.description}`);
  },
  resolveAll: () => [],
  isBound: () => false,
};

let storage: MemoryStorage;
let jobs: BatchInferenceJobService;
const pools: QueueWorkerPool[] = [];

function startWorkers(client: ChatModelClient, options: BatchInferenceOptions = {}): { runner: BatchInferenceRunner; pool: QueueWorkerPool } {
  const runner = new BatchInferenceRunner({ rowRetryBaseMs: 1, cancelPollMs: 20, leaseMs: 300, backoff: { initialMs: 10, maxMs: 20 }, ...options });
  runner.attach(client);
  const pool = new QueueWorkerPool({ storage, handlers: [runner.handler], pollIntervalMs: 10, resolver, stopTimeoutMs: 50 });
  pool.start();
  pools.push(pool);
  return { runner, pool };
}

async function uploadInput(lines: string[]): Promise<void> {
  await storage.resources.create(systemContext(), input, { name: input, state: 'READY', format: 'FORMAT_UNSPECIFIED' });
  await storage.blobs.put(systemContext(), 'datasets/acme/datasets/in/rows.jsonl', Buffer.from(`${lines.join('\n')}\n`), 'application/jsonl');
}

function row(id: string, content: string, body: JsonObject = {}): string {
  return JSON.stringify({ custom_id: id, body: { messages: [{ role: 'user', content }], ...body } });
}

async function job(name: string): Promise<BatchInferenceJob> {
  return jobs.get(ctx, name);
}

async function until(name: string, states: string[]): Promise<BatchInferenceJob> {
  await waitFor(async () => states.includes((await job(name)).state ?? ''), 10_000, `${name} in ${states.join('/')}`);
  return job(name);
}

async function file(dataset: string, filename: string): Promise<JsonObject[]> {
  const blob = await storage.blobs.get(systemContext(), `datasets/${dataset.slice('accounts/'.length)}/${filename}`);
  if (!blob) throw new Error(`no ${filename}`);
  return Buffer.from(blob.bytes).toString('utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as JsonObject);
}

beforeEach(async () => {
  storage = new MemoryStorage();
  jobs = await batchInferenceJobServiceOver(storage, ctx);
  await storage.resources.create(systemContext(), model, { name: model, kind: 'HUB_BASE_MODEL' });
});

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.stop()));
});

describe('batch inference jobs on the durable queue', () => {
  it('runs every row once: results with n choices, invalid and failed rows in the error file, exact progress, output READY', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 60; i += 1) lines.push(row(`r${i}`, i % 10 === 3 ? `bad ${i}` : i % 10 === 5 ? `flaky ${i}` : `hello ${i}`, i === 7 ? { n: 1, max_tokens: 5 } : {}));
    lines.push('{not json', JSON.stringify({ custom_id: 'nobody' }), JSON.stringify({ messages: [{ role: 'user', content: 'plain' }] }));
    await uploadInput(lines);
    const client = new ScriptedClient();
    startWorkers(client, { concurrency: 3, chunkSize: 7 });
    const created = await jobs.create(ctx, 'acme', {
      model, inputDatasetId: 'in', outputDatasetId: 'out',
      inferenceParameters: { maxTokens: 64, temperature: 0.5, n: 2, extraBody: '{"seed": 7, "max_tokens": 1}' },
    }, 'job1');
    expect(created.state).toBe('JOB_STATE_CREATING');
    const done = await until(created.name!, ['JOB_STATE_COMPLETED', 'JOB_STATE_FAILED']);
    expect(done.state, JSON.stringify(done.status)).toBe('JOB_STATE_COMPLETED');
    const results = await file('accounts/acme/datasets/out', 'results.jsonl');
    const errors = await file('accounts/acme/datasets/out', 'errors.jsonl');
    // 63 input rows: 6 answered 400, 2 invalid (not JSON, no body), 55 answered (one in the plain chat format).
    expect(results).toHaveLength(55);
    expect(errors).toHaveLength(8);
    const ids = [...results, ...errors].map((r) => r.custom_id);
    expect(new Set(ids.filter((id) => id !== null)).size).toBe(62);
    expect(ids.filter((id) => id === null)).toHaveLength(1);
    expect(results.map((r) => r.custom_id)).toContain('row-63');
    const first = results.find((r) => r.custom_id === 'r0')!;
    expect((first.response as { body: { choices: unknown[] } }).body.choices).toHaveLength(2);
    expect(errors.find((e) => e.custom_id === 'r3')).toMatchObject({ status_code: 400, error: { code: 'bad_row' } });
    expect(errors.find((e) => e.row === 61)).toMatchObject({ custom_id: null, error: { code: 'invalid_row', message: 'the line is not valid JSON' } });
    // Parameters under row overrides, extraBody lowest; flaky rows retried once.
    expect(client.sent.find((b) => (b.messages as { content: string }[])[0]!.content === 'hello 0')).toMatchObject({ max_tokens: 64, temperature: 0.5, n: 2, seed: 7 });
    expect(client.sent.find((b) => (b.messages as { content: string }[])[0]!.content === 'hello 7')).toMatchObject({ max_tokens: 5, n: 1 });
    expect(client.sent.every((b) => b.model === undefined)).toBe(true);
    expect(done.jobProgress).toEqual({
      percent: 100, epoch: 0, totalInputRequests: 63, totalProcessedRequests: 63, successfullyProcessedRequests: 55, failedRequests: 8,
      outputRows: 55, inputTokens: 55 * 3, outputTokens: 54 * 4 + 2, cachedInputTokenCount: 55,
    });
    const output = await storage.resources.get(systemContext(), 'accounts/acme/datasets/out');
    expect(output?.data).toMatchObject({ state: 'READY', exampleCount: '55', sourceJobName: created.name });
    expect(await storage.blobs.list(systemContext(), 'batch-jobs/')).toEqual([]);
  });

  it('splits results over several files when they pass outputPartBytes, streamed chunk file by chunk file, every row once', async () => {
    await uploadInput(Array.from({ length: 40 }, (_, i) => row(`r${i}`, `hello ${i}`)));
    startWorkers(new ScriptedClient(), { concurrency: 2, chunkSize: 4, outputPartBytes: 2000 });
    const created = await jobs.create(ctx, 'acme', { model, inputDatasetId: 'in', outputDatasetId: 'parts' }, 'parts');
    const done = await until(created.name!, ['JOB_STATE_COMPLETED', 'JOB_STATE_FAILED']);
    expect(done.state, JSON.stringify(done.status)).toBe('JOB_STATE_COMPLETED');
    const names = (await storage.blobs.list(systemContext(), 'datasets/acme/datasets/parts/')).map((k) => k.split('/').pop()!);
    const parts = names.filter((n) => n.startsWith('results-')).sort((a, b) => Number(/\d+/.exec(a)![0]) - Number(/\d+/.exec(b)![0]));
    expect(parts.length).toBeGreaterThan(1);
    expect(names).not.toContain('results.jsonl');
    expect(names).toContain('errors.jsonl');
    const rows: unknown[] = [];
    for (const part of parts) {
      const size = (await storage.blobs.head(systemContext(), `datasets/acme/datasets/parts/${part}`))!.size;
      expect(size).toBeLessThanOrEqual(2000);
      rows.push(...(await file('accounts/acme/datasets/parts', part)).map((r) => r.row));
    }
    expect(rows).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect((await storage.resources.get(systemContext(), 'accounts/acme/datasets/parts'))?.data).toMatchObject({ state: 'READY', exampleCount: '40' });
  });

  it('fails every repeat of a custom_id after the first valid row with it (duplicate_custom_id)', async () => {
    const lines = [row('a', 'hello a'), row('b', 'hello b'), JSON.stringify({ custom_id: 'c' }), row('a', 'again a'), row('c', 'hello c'), row('b', 'again b'), row('a', 'third a')];
    await uploadInput(lines);
    const client = new ScriptedClient();
    startWorkers(client, { concurrency: 2, chunkSize: 2 });
    const created = await jobs.create(ctx, 'acme', { model, inputDatasetId: 'in', outputDatasetId: 'dups' }, 'dups');
    const done = await until(created.name!, ['JOB_STATE_COMPLETED', 'JOB_STATE_FAILED']);
    expect(done.jobProgress).toMatchObject({ totalInputRequests: 7, successfullyProcessedRequests: 3, failedRequests: 4 });
    expect((await file('accounts/acme/datasets/dups', 'results.jsonl')).map((r) => [r.custom_id, r.row])).toEqual([['a', 1], ['b', 2], ['c', 5]]);
    const errors = await file('accounts/acme/datasets/dups', 'errors.jsonl');
    expect(errors.map((e) => [e.custom_id, e.row, (e.error as { code: string }).code])).toEqual([
      ['c', 3, 'invalid_row'], ['a', 4, 'duplicate_custom_id'], ['b', 6, 'duplicate_custom_id'], ['a', 7, 'duplicate_custom_id'],
    ]);
    expect((errors[1]!.error as { message: string }).message).toContain('already used by row 1');
    // The repeats were never sent.
    expect(client.sent.map((b) => (b.messages as { content: string }[])[0]!.content).sort()).toEqual(['hello a', 'hello b', 'hello c']);
  });

  it('fails in VALIDATING with a status when the input is not READY or the model cannot serve', async () => {
    await uploadInput([row('a', 'hello')]);
    await storage.resources.create(systemContext(), 'accounts/acme/datasets/up', { name: 'accounts/acme/datasets/up', state: 'UPLOADING' });
    await storage.resources.create(systemContext(), 'accounts/acme/models/undeployed', { name: 'accounts/acme/models/undeployed' });
    startWorkers(new ScriptedClient());
    const notReady = await jobs.create(ctx, 'acme', { model, inputDatasetId: 'up' });
    const noServing = await jobs.create(ctx, 'acme', { model: 'accounts/acme/models/undeployed', inputDatasetId: 'in' });
    expect(await until(notReady.name!, ['JOB_STATE_FAILED'])).toMatchObject({ status: { code: 'FAILED_PRECONDITION', message: expect.stringContaining('must be READY') } });
    expect(await until(noServing.name!, ['JOB_STATE_FAILED'])).toMatchObject({ status: { code: 'NOT_FOUND', message: expect.stringContaining('cannot serve') } });
  });

  it('cancels a running job: no row sent after the cancel, committed rows kept in the READY output; delete cancels first', async () => {
    await uploadInput(Array.from({ length: 40 }, (_, i) => row(`r${i}`, `hello ${i}`)));
    const client = new ScriptedClient();
    client.pauseAfter = 9;
    startWorkers(client, { concurrency: 2, chunkSize: 4 });
    const created = await jobs.create(ctx, 'acme', { model, inputDatasetId: 'in', outputDatasetId: 'partial' }, 'cancelme');
    await waitFor(async () => ((await job(created.name!)).jobProgress?.totalProcessedRequests ?? 0) >= 8);
    await waitFor(() => client.calls >= 11);
    await expect(jobs.cancel(ctx, created.name!)).resolves.toEqual({});
    const sentAtCancel = client.calls;
    client.release();
    await waitFor(async () => (await storage.resources.get(systemContext(), 'accounts/acme/datasets/partial'))?.data.state === 'READY');
    const cancelled = await job(created.name!);
    expect(cancelled).toMatchObject({ state: 'JOB_STATE_CANCELLED', status: { code: 'CANCELLED' } });
    expect(client.calls).toBe(sentAtCancel);
    const results = await file('accounts/acme/datasets/partial', 'results.jsonl');
    expect(results.length).toBe(cancelled.jobProgress?.outputRows);
    // Rows answered before the cancel took effect are kept: a prefix of the input, never a row sent after it.
    expect(results.length).toBeGreaterThanOrEqual(8);
    expect(results.length).toBeLessThanOrEqual(sentAtCancel);
    expect(results.map((r) => r.custom_id)).toEqual(Array.from({ length: results.length }, (_, i) => `r${i}`));
    await expect(jobs.cancel(ctx, created.name!)).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION });

    client.pauseAfter = client.calls + 4;
    const deleting = await jobs.create(ctx, 'acme', { model, inputDatasetId: 'in' }, 'deleteme');
    await waitFor(async () => ((await job(deleting.name!)).jobProgress?.totalProcessedRequests ?? 0) >= 4);
    await waitFor(() => client.calls >= sentAtCancel + 6);
    const callsAtDelete = client.calls;
    await jobs.delete(ctx, deleting.name!);
    await expect(jobs.get(ctx, deleting.name!)).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await waitFor(async () => (await storage.resources.get(systemContext(), 'accounts/acme/batchInferenceJobRuns/deleteme')) === undefined);
    expect(client.calls).toBe(callsAtDelete);
  });

  it('resumes a job whose worker died from its last committed chunk: every row exactly once', async () => {
    await uploadInput(Array.from({ length: 50 }, (_, i) => row(`r${i}`, `hello ${i}`)));
    const stuck = new ScriptedClient();
    stuck.pauseAfter = 17; // the first worker hangs mid-chunk (rows 18 and 19 of chunk 4), then its pool dies
    const first = startWorkers(stuck, { concurrency: 2, chunkSize: 5 });
    const created = await jobs.create(ctx, 'acme', { model, inputDatasetId: 'in', outputDatasetId: 'resumed' }, 'resume');
    await waitFor(async () => ((await job(created.name!)).jobProgress?.totalProcessedRequests ?? 0) >= 15);
    await waitFor(() => stuck.calls >= 19);
    await first.pool.stop();
    const committed = (await job(created.name!)).jobProgress?.totalProcessedRequests ?? 0;
    expect(committed).toBeGreaterThanOrEqual(15);
    expect(committed).toBeLessThanOrEqual(17);
    startWorkers(new ScriptedClient(), { concurrency: 3, chunkSize: 7 });
    const done = await until(created.name!, ['JOB_STATE_COMPLETED', 'JOB_STATE_FAILED']);
    expect(done.state).toBe('JOB_STATE_COMPLETED');
    const ids = (await file('accounts/acme/datasets/resumed', 'results.jsonl')).map((r) => r.custom_id);
    expect(ids).toEqual(Array.from({ length: 50 }, (_, i) => `r${i}`));
    expect(done.jobProgress).toMatchObject({ totalProcessedRequests: 50, successfullyProcessedRequests: 50, outputRows: 50, percent: 100 });
  });

  it('continues a job: only the rows it failed or never processed run, into the new job\'s own output dataset', async () => {
    await uploadInput(Array.from({ length: 30 }, (_, i) => row(`r${i}`, i % 7 === 2 ? `bad ${i}` : `hello ${i}`)).concat(['{broken']));
    const client = new ScriptedClient();
    startWorkers(client, { concurrency: 2, chunkSize: 4 });
    const first = await jobs.create(ctx, 'acme', { model, inputDatasetId: 'in', outputDatasetId: 'first-out' }, 'first');
    expect((await until(first.name!, ['JOB_STATE_COMPLETED'])).jobProgress).toMatchObject({ totalInputRequests: 31, failedRequests: 5 });
    client.failBad = false;
    const second = await jobs.create(ctx, 'acme', { continuedFromJobName: first.name }, 'second');
    expect(second).toMatchObject({ model, inputDatasetId: input, continuedFromJobName: first.name });
    const done = await until(second.name!, ['JOB_STATE_COMPLETED', 'JOB_STATE_FAILED']);
    expect(done.state, JSON.stringify(done.status)).toBe('JOB_STATE_COMPLETED');
    expect(done.outputDatasetId).toBe('accounts/acme/datasets/second-output');
    expect(done.jobProgress).toMatchObject({ totalInputRequests: 5, totalProcessedRequests: 5, successfullyProcessedRequests: 4, failedRequests: 1 });
    const results = await file('accounts/acme/datasets/second-output', 'results.jsonl');
    expect(results.map((r) => r.custom_id)).toEqual(['r2', 'r9', 'r16', 'r23']);
    expect((await file('accounts/acme/datasets/second-output', 'errors.jsonl')).map((e) => e.row)).toEqual([31]);
    const firstResults = await file('accounts/acme/datasets/first-out', 'results.jsonl');
    expect(new Set([...firstResults, ...results].map((r) => r.custom_id)).size).toBe(30);
  });
});
