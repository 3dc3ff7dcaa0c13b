import { beforeEach, describe, expect, it } from 'vitest';
import { systemContext } from '../contracts/request-context.js';
import { systemClock } from '../ports/clock.js';
import { MemoryStorage } from '../storage-memory/index.js';
import { describeBackgroundResponseScenarios } from '../testing/background-response-scenarios.js';
import { waitFor } from '../testing/queue-worker-scenarios.js';
import { QueueWorkerPool } from '../workers/queue-worker-pool.js';
import { QueueWakeups } from '../workers/queue-wakeups.js';
import { BackgroundResponses, backgroundResponseJob, backgroundResponsesQueue } from './background-responses.js';
import { callerContext, EngineClient, fixtureDirectory, fixtureModel } from './responses-fixtures.js';
import type { ChatModelClient } from './model-client.js';
import { ResponsesService } from './responses-service.js';

describeBackgroundResponseScenarios('memory storage', async () => ({ storage: new MemoryStorage(), close: async () => undefined }));

describe('background responses: request rules and cancel', () => {
  const ctx = callerContext();
  let storage: MemoryStorage;
  let service: ResponsesService;

  beforeEach(async () => {
    storage = new MemoryStorage();
    service = new ResponsesService({ resources: storage.resources, storage, directory: fixtureDirectory(storage.resources), client: new EngineClient(), clock: systemClock });
    await storage.resources.create(systemContext(), fixtureModel, { name: fixtureModel, contextLength: 8192 });
  });

  it('refuses background with store false or stream true, and on a gateway without the storage', async () => {
    await expect(service.create(ctx, { model: fixtureModel, input: 'x', background: true, store: false })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'store' });
    await expect(service.prepare(ctx, { model: fixtureModel, input: 'x', background: true, stream: true })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'stream' });
    const withoutQueue = new ResponsesService({ resources: storage.resources, directory: fixtureDirectory(storage.resources), client: new EngineClient(), clock: systemClock });
    await expect(withoutQueue.create(ctx, { model: fixtureModel, input: 'x', background: true })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'background' });
  });

  it('checks the request before storing anything: an unknown model or previous response is an error, not a queued response', async () => {
    await expect(service.create(ctx, { model: 'accounts/acme/models/other', input: 'x', background: true })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.create(ctx, { model: fixtureModel, input: 'x', background: true, previous_response_id: 'resp_nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await service.list(ctx, {})).data).toEqual([]);
  });

  it('wakes this process’s queue workers once the job is stored', async () => {
    const queueWakeups = new QueueWakeups();
    let pokes = 0;
    queueWakeups.subscribe(() => (pokes += 1));
    const waking = new ResponsesService({ resources: storage.resources, storage, queueWakeups, directory: fixtureDirectory(storage.resources), client: new EngineClient(), clock: systemClock });
    await waking.create(ctx, { model: fixtureModel, input: 'x' });
    expect(pokes).toBe(0);
    await waking.create(ctx, { model: fixtureModel, input: 'x', background: true });
    expect(pokes).toBe(1);
  });

  it('stores the queued response with one job, in the caller’s account only', async () => {
    const created = await service.create(ctx, { model: fixtureModel, input: 'x', background: true });
    expect(await service.get(ctx, created.id!)).toEqual(created);
    // Nothing to continue from until it ends.
    await expect(service.create(ctx, { model: fixtureModel, input: 'y', previous_response_id: created.id })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'previous_response_id' });
    await expect(service.create(ctx, { model: fixtureModel, input: 'y', previous_response_id: created.id, background: true })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'previous_response_id' });
    const job = await storage.queue.enqueue(systemContext(), backgroundResponseJob(`accounts/acme/responses/${created.id}`));
    expect(job).toMatchObject({ queue: backgroundResponsesQueue, state: 'queued', attempt: 0 });
    const other = callerContext('globex');
    await expect(service.get(other, created.id!)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.cancel(other, created.id!)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await service.get(ctx, created.id!)).status).toBe('queued');
  });

  it('cancels only background responses; an unknown id is not found', async () => {
    const foreground = await service.create(ctx, { model: fixtureModel, input: 'x' });
    await expect(service.cancel(ctx, foreground.id!)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: 'Only responses created with background=true can be cancelled' });
    expect(await service.get(ctx, foreground.id!)).toEqual(foreground);
    await expect(service.cancel(ctx, 'resp_0123')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.cancel(ctx, '../x')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('fails the response on the job’s last attempt when no instance can run it', async () => {
    const created = await service.create(ctx, { model: fixtureModel, input: 'x', background: true });
    const background = new BackgroundResponses(); // nothing attached: this instance serves no Responses API
    const pool = new QueueWorkerPool({ storage, handlers: [background.handler], pollIntervalMs: 10 });
    // One attempt left: the job was created with the default five, so exhaust four of them first.
    for (let i = 0; i < 4; i += 1) {
      const claimed = await storage.queue.claim(systemContext(), backgroundResponsesQueue, 'w', 1000);
      await storage.queue.fail(systemContext(), claimed!.id, claimed!.attempt, 'simulated', new Date(0));
    }
    pool.start();
    try {
      await waitFor(async () => (await service.get(ctx, created.id!)).status !== 'queued', 10_000, 'the last attempt');
    } finally {
      await pool.stop();
    }
    expect(await service.get(ctx, created.id!)).toMatchObject({ status: 'failed', error: { type: 'server_error', code: 'server_error' } });
  });

  it('claims no more background jobs once its runner detached (the server closed): they wait for another instance', async () => {
    const created = await service.create(ctx, { model: fixtureModel, input: 'x', background: true });
    const background = new BackgroundResponses();
    const detach = background.attach(service);
    expect(background.handler.paused?.()).toBe(false);
    detach();
    expect(background.handler.paused?.()).toBe(true);
    const pool = new QueueWorkerPool({ storage, handlers: [background.handler], pollIntervalMs: 10 });
    pool.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(pool.stats.claimed).toBe(0);
      const job = await storage.queue.enqueue(systemContext(), backgroundResponseJob(`accounts/acme/responses/${created.id}`));
      expect(job).toMatchObject({ state: 'queued', attempt: 0 });
      // Attached again (a server started in this process again): the job runs.
      background.attach(service);
      await waitFor(async () => (await service.get(ctx, created.id!)).status === 'completed', 10_000, 'the response to complete');
    } finally {
      await pool.stop();
    }
  });

  it('hands a running response back due at once when the server closes (detach, then hand over), not after a backoff', async () => {
    let entered = 0;
    const hanging: ChatModelClient = {
      complete: (callCtx) => new Promise((_resolve, reject) => {
        entered += 1;
        callCtx.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      }),
      stream: () => Promise.reject(new Error('not streamed')),
    };
    const closing = new ResponsesService({ resources: storage.resources, storage, directory: fixtureDirectory(storage.resources), client: hanging, clock: systemClock });
    // A minute's backoff: an attempt that is not handed back would not be due for a minute.
    const background = new BackgroundResponses({ backoff: { initialMs: 60_000, jitter: 0 } });
    const detach = background.attach(closing);
    const pool = new QueueWorkerPool({ storage, handlers: [background.handler], pollIntervalMs: 10 });
    pool.start();
    try {
      const created = await closing.create(ctx, { model: fixtureModel, input: 'x', background: true });
      await waitFor(() => entered === 1, 10_000, 'the generation to start');
      detach();
      closing.handOverBackground();
      const job = await storage.queue.enqueue(systemContext(), backgroundResponseJob(`accounts/acme/responses/${created.id}`));
      await waitFor(async () => (await storage.queue.get(systemContext(), job.id))?.state === 'queued', 10_000, 'the attempt to end');
      const back = await storage.queue.get(systemContext(), job.id);
      expect(back).toMatchObject({ state: 'queued', attempt: 1, lastError: expect.stringContaining('stopped serving') });
      expect(Date.parse(back!.runAt)).toBeLessThanOrEqual(Date.now());
      expect(pool.stats.claimed).toBe(1);
    } finally {
      await pool.stop();
    }
  });

  it('runs a job claimed before the server attached its runner (just after a start) once it attaches, in the same attempt', async () => {
    const created = await service.create(ctx, { model: fixtureModel, input: 'x', background: true });
    const background = new BackgroundResponses();
    const pool = new QueueWorkerPool({ storage, handlers: [background.handler], pollIntervalMs: 10 });
    pool.start();
    try {
      await waitFor(() => pool.stats.claimed === 1, 10_000, 'the job to be claimed');
      background.attach(service);
      await waitFor(async () => (await service.get(ctx, created.id!)).status === 'completed', 10_000, 'the response to complete');
      const job = await storage.queue.enqueue(systemContext(), backgroundResponseJob(`accounts/acme/responses/${created.id}`));
      expect(job).toMatchObject({ state: 'completed', attempt: 1 });
    } finally {
      await pool.stop();
    }
  });
});
