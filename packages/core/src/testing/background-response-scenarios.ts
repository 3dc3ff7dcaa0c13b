import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemContext, type RequestContext } from '../kernel/request-context.js';
import { systemClock } from '../ports/clock.js';
import type { Storage } from '../ports/storage.js';
import { Code, GatewayError } from '../errors/index.js';
import { BackgroundResponses, backgroundResponseJob } from '../responses/background-responses.js';
import type { ChatCompletionCall, ChatCompletionOutcome, ChatModelClient, ChatStreamOutcome } from '../responses/model-client.js';
import { callerContext, EngineClient, fixtureAccount, fixtureDirectory, fixtureModel } from '../responses/responses-fixtures.js';
import { ResponsesService } from '../responses/responses-service.js';
import type { ResponseObject } from '../responses/response-types.js';
import { QueueWorkerPool } from '../workers/queue-worker-pool.js';
import { waitFor, withoutRenewals, type ScenarioStorage } from './queue-worker-scenarios.js';

/**
 * A model client whose calls wait until the test opens its gate (or the caller's signal aborts them),
 * then answer like the reference engine: a generation the test can hold running, finish or see aborted.
 */
class GatedClient implements ChatModelClient {
  readonly engine = new EngineClient();
  entered = 0;
  aborted = 0;
  private openGate: () => void = () => undefined;
  private gate = new Promise<void>((resolve) => {
    this.openGate = resolve;
  });

  constructor(open = false) {
    if (open) this.open();
  }

  open(): void {
    this.openGate();
  }

  async complete(ctx: RequestContext, call: ChatCompletionCall): Promise<ChatCompletionOutcome> {
    this.entered += 1;
    await new Promise<void>((resolve, reject) => {
      const abort = () => {
        this.aborted += 1;
        reject(new GatewayError(Code.CANCELLED, 'the caller went away', { reason: 'CLIENT_CLOSED' }));
      };
      if (ctx.signal?.aborted) return abort();
      ctx.signal?.addEventListener('abort', abort, { once: true });
      void this.gate.then(() => {
        ctx.signal?.removeEventListener('abort', abort);
        resolve();
      });
    });
    return this.engine.complete(ctx, call);
  }

  stream(ctx: RequestContext, call: ChatCompletionCall): Promise<ChatStreamOutcome> {
    return this.engine.stream(ctx, call);
  }
}

/** One gateway instance of the scenarios: its Responses service and, when it runs them, queue workers. */
interface Instance {
  readonly service: ResponsesService;
  readonly client: GatedClient;
  start(): void;
}

const ctx = callerContext();
const system = systemContext('test');

/**
 * Background responses (`background: true`, `POST …/cancel`) on a storage adapter, with two "instances"
 * (services and queue worker pools) sharing it: a response created on one is run by the other's workers,
 * a cancel on one stops the generation running on the other, a cancel racing the completion leaves one
 * terminal status, and a job whose worker stopped renewing its lease is run again by another worker.
 * `open` runs before each test.
 */
export function describeBackgroundResponseScenarios(label: string, open: () => Promise<ScenarioStorage>): void {
  describe(`background responses on ${label}`, () => {
    let db: ScenarioStorage;
    let storage: Storage;
    const pools: QueueWorkerPool[] = [];

    const instance = (client: GatedClient, options: { leaseMs?: number; on?: Storage } = {}): Instance => {
      const on = options.on ?? storage;
      const service = new ResponsesService({
        resources: on.resources, storage: on, directory: fixtureDirectory(on.resources), client, clock: systemClock, cancelPollMs: 20,
      });
      // Failed attempts are retried after 10 ms rather than a second, to keep the scenarios short.
      const background = new BackgroundResponses({ backoff: { initialMs: 10 }, ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}) });
      background.attach(service);
      return {
        service,
        client,
        start: () => {
          const pool = new QueueWorkerPool({ storage: on, handlers: [background.handler], pollIntervalMs: 20, stopTimeoutMs: 2000 });
          pools.push(pool);
          pool.start();
        },
      };
    };

    const statusOf = async (on: Instance, id: string): Promise<string> => (await on.service.get(ctx, id)).status;
    const settled = async (on: Instance, id: string): Promise<ResponseObject> => {
      await waitFor(async () => !['queued', 'in_progress'].includes(await statusOf(on, id)), 10_000, `response ${id} to finish`);
      return on.service.get(ctx, id);
    };
    /** Waits until the response's job is completed (the job is found again through its dedupe key, the record name). */
    const jobDone = async (id: string): Promise<void> => {
      const job = await storage.queue.enqueue(system, backgroundResponseJob(`accounts/${fixtureAccount}/responses/${id}`));
      await waitFor(async () => (await storage.queue.get(system, job.id))?.state === 'completed', 10_000, `the job of ${id} to complete`);
    };

    beforeEach(async () => {
      db = await open();
      storage = db.storage;
      await storage.resources.create(system, fixtureModel, { name: fixtureModel, contextLength: 8192 });
    });
    afterEach(async () => {
      await Promise.all(pools.splice(0).map((pool) => pool.stop()));
      await db.close();
    });

    it('answers queued at once and is completed by another instance’s workers', async () => {
      const a = instance(new GatedClient(true));
      const b = instance(new GatedClient(true));
      const created = await a.service.create(ctx, { model: fixtureModel, input: 'Say hello', background: true, metadata: { run: 'bg' }, temperature: 0.5 });
      expect(created).toMatchObject({ status: 'queued', background: true, store: true, output: [], completed_at: null, metadata: { run: 'bg' }, temperature: 0.5 });
      expect(a.client.entered).toBe(0);
      b.start();
      const done = await settled(a, created.id!);
      expect(done).toMatchObject({ id: created.id, status: 'completed', background: true, metadata: { run: 'bg' }, temperature: 0.5, created_at: created.created_at });
      expect(done.completed_at).toBeGreaterThanOrEqual(done.created_at);
      expect(done.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
      expect(done.usage.output_tokens).toBeGreaterThan(0);
      expect([a.client.entered, b.client.entered]).toEqual([0, 1]);
      // It continues like any stored response.
      const next = await b.service.create(ctx, { model: fixtureModel, input: 'Again', previous_response_id: created.id });
      expect(next.status).toBe('completed');
    });

    it('stops the generation running on another instance when cancelled', async () => {
      const a = instance(new GatedClient());
      const b = instance(new GatedClient());
      b.start();
      const created = await a.service.create(ctx, { model: fixtureModel, input: 'Write a long story', background: true });
      await waitFor(() => b.client.entered === 1, 10_000, 'the worker to start generating');
      expect(await statusOf(a, created.id!)).toBe('in_progress');
      const cancelled = await a.service.cancel(ctx, created.id!);
      expect(cancelled).toMatchObject({ id: created.id, status: 'cancelled', background: true });
      await waitFor(() => b.client.aborted === 1, 10_000, 'the generation to be aborted');
      await jobDone(created.id!);
      expect(await a.service.get(ctx, created.id!)).toMatchObject({ status: 'cancelled', output: [] });
      // Idempotent: a second cancel answers the response unchanged.
      expect(await b.service.cancel(ctx, created.id!)).toEqual(await a.service.get(ctx, created.id!));
    });

    it('never runs a response cancelled while queued', async () => {
      const a = instance(new GatedClient(true));
      const created = await a.service.create(ctx, { model: fixtureModel, input: 'x', background: true });
      expect((await a.service.cancel(ctx, created.id!)).status).toBe('cancelled');
      a.start();
      await jobDone(created.id!);
      expect(a.client.entered).toBe(0);
      expect(await statusOf(a, created.id!)).toBe('cancelled');
    });

    it('leaves exactly one terminal status when a cancel races the completion', async () => {
      for (let round = 0; round < 6; round += 1) {
        const a = instance(new GatedClient());
        a.start();
        const created = await a.service.create(ctx, { model: fixtureModel, input: `round ${round}`, background: true });
        await waitFor(() => a.client.entered === 1, 10_000, 'the worker to start generating');
        // Which one commits first varies with the round: the cancel sent before the model answers, or a little after.
        let racing: Promise<ResponseObject>;
        if (round % 2 === 0) {
          racing = a.service.cancel(ctx, created.id!);
          a.client.open();
        } else {
          a.client.open();
          for (let tick = 0; tick < round; tick += 1) await new Promise((resolve) => setImmediate(resolve));
          racing = a.service.cancel(ctx, created.id!);
        }
        const answered = await racing;
        await jobDone(created.id!);
        const final = await a.service.get(ctx, created.id!);
        expect(['cancelled', 'completed']).toContain(final.status);
        expect(answered.status).toBe(final.status);
        expect(final.output.length > 0).toBe(final.status === 'completed');
        await Promise.all(pools.splice(0).map((pool) => pool.stop()));
      }
    });

    it('runs again, on another worker, a response whose worker stopped renewing its lease', async () => {
      const stalled = instance(new GatedClient(), { leaseMs: 150, on: withoutRenewals(storage) });
      const healthy = instance(new GatedClient(true), { leaseMs: 150 });
      stalled.start();
      const created = await stalled.service.create(ctx, { model: fixtureModel, input: 'Say hello', background: true });
      await waitFor(() => stalled.client.entered === 1, 10_000, 'the first worker to start generating');
      healthy.start();
      const done = await settled(healthy, created.id!);
      expect(done.status).toBe('completed');
      // The stalled worker wakes up late: its attempt is fenced (or it sees the response finished), nothing changes.
      stalled.client.open();
      await jobDone(created.id!);
      expect(await healthy.service.get(ctx, created.id!)).toEqual(done);
    });

    it('hands a running response back to the queue when its instance stops serving, and another runs it', async () => {
      const stopping = instance(new GatedClient());
      stopping.start();
      const created = await stopping.service.create(ctx, { model: fixtureModel, input: 'Say hello', background: true });
      await waitFor(() => stopping.client.entered === 1, 10_000, 'the worker to start generating');
      // The instance's workers stop claiming first (stop() waits for the running job): otherwise they could
      // claim the handed-back job again before the pool stops, a flake seen twice in CI under load.
      const poolsStopped = Promise.all(pools.splice(0).map((pool) => pool.stop()));
      stopping.service.handOverBackground();
      await waitFor(() => stopping.client.aborted === 1, 10_000, 'the generation to be aborted');
      await poolsStopped;
      const job = await storage.queue.enqueue(system, backgroundResponseJob(`accounts/${fixtureAccount}/responses/${created.id}`));
      expect(job).toMatchObject({ state: 'queued', attempt: 1, lastError: expect.stringContaining('stopped serving') });
      expect(await statusOf(stopping, created.id!)).toBe('in_progress');
      const taking = instance(new GatedClient(true));
      taking.start();
      expect(await settled(taking, created.id!)).toMatchObject({ status: 'completed', error: null });
      expect(taking.client.entered).toBe(1);
    });
  });
}
