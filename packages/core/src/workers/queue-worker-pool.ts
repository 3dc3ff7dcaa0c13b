import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Resolver } from '../kernel/container.js';
import { systemContext, type RequestContext } from '../kernel/request-context.js';
import { systemClock, type Clock } from '../ports/clock.js';
import type { JsonValue } from '../ports/json.js';
import { silentLogger, type GatewayLogger } from '../ports/logger.js';
import { noTelemetry, type Telemetry } from '../ports/telemetry.js';
import { releaseUnstartedJob, type ClaimedJob, type Storage, type StorageTransaction } from '../ports/storage.js';
import { retryDelayMs } from './backoff.js';
import { isGatewayError } from '../errors/index.js';
import { SpanKind, inSpan, tracingEnabled } from '../tracing/tracing.js';
import { commitJobEffects, isStaleAttempt } from './exactly-once.js';
import { DEFAULT_LEASE_MS, handedOverReason, type QueueHandler, type QueueJobContext } from './queue-handler.js';

export interface QueueWorkerPoolSettings {
  /** Jobs run at once by this pool, over all queues (default 4). */
  readonly concurrency?: number;
  /** Pause of an idle worker between polls when every queue was empty (default 1000 ms, ±20% jitter). */
  readonly pollIntervalMs?: number;
  /** Recorded on each lease; default `<hostname>-<pid>-<random>`. Unique per process. */
  readonly workerId?: string;
  /** How long `stop` waits for running jobs before aborting their signals and returning (default 30 s). */
  readonly stopTimeoutMs?: number;
}

export interface QueueWorkerPoolOptions extends QueueWorkerPoolSettings {
  readonly storage: Storage;
  readonly handlers: readonly QueueHandler[];
  /** Handed to handlers as `ctx.resolver`; defaults to one that resolves nothing. */
  readonly resolver?: Resolver;
  readonly logger?: GatewayLogger;
  /** Source of retry times (leases use the store's clock). */
  readonly clock?: Clock;
  /** Hears each attempt's outcome and duration. */
  readonly telemetry?: Telemetry;
}

/** Counters since start, for tests and metrics. */
export interface QueueWorkerStats {
  claimed: number;
  completed: number;
  /** Attempts that threw and were recorded as failed (retried later, or dead-lettered). */
  failed: number;
  /** Attempts fenced out because another worker took the job; their transactional effects rolled back. */
  lost: number;
  /** Claims given back unstarted: the pool began stopping while they were in flight. */
  released: number;
}

const emptyResolver: Resolver = {
  resolve: (token) => {
    throw new Error(`the queue worker pool was given no resolver (asked for ${token.description})`);
  },
  resolveAll: () => [],
  isBound: () => false,
};

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

/**
 * Runs queued jobs: `concurrency` workers claim jobs of the handlers' queues (round robin), renew each
 * lease every third of it while the handler runs, then complete the job or record the failure with an
 * exponential backoff. A worker that finds every queue empty waits `pollIntervalMs` (or until
 * {@link QueueWorkerPool.poke}). Several pools, in one process or many, may share one store: the
 * queue's leases and attempt fencing keep a job with one worker at a time.
 *
 * `stop` claims nothing more and waits for running jobs up to `stopTimeoutMs`; then it aborts their
 * signals. An attempt that ends while the pool stops (or that a handler ends as `HANDED_OVER`) is handed
 * back: recorded as failed and due at once, so another instance claims it without waiting.
 */
export class QueueWorkerPool {
  readonly workerId: string;
  readonly stats: QueueWorkerStats = { claimed: 0, completed: 0, failed: 0, lost: 0, released: 0 };

  private readonly storage: Storage;
  private readonly handlers: readonly QueueHandler[];
  private readonly resolver: Resolver;
  private readonly logger: GatewayLogger;
  private readonly clock: Clock;
  private readonly telemetry: Telemetry;
  private readonly tracing = tracingEnabled();
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly stopTimeoutMs: number;
  private readonly running = new Set<AbortController>();
  private loops: Promise<void>[] = [];
  private stopping = new AbortController();
  private wake = new AbortController();
  private next = 0;
  private state: 'idle' | 'running' | 'stopped' = 'idle';

  /** @throws Error when two handlers share a queue, or a setting is out of range. */
  constructor(options: QueueWorkerPoolOptions) {
    const queues = new Set<string>();
    for (const handler of options.handlers) {
      if (queues.has(handler.queue)) throw new Error(`two queue handlers are registered for queue "${handler.queue}"`);
      queues.add(handler.queue);
    }
    this.concurrency = options.concurrency ?? 4;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.stopTimeoutMs = options.stopTimeoutMs ?? 30_000;
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1) throw new Error('queue workers: concurrency must be a positive integer');
    if (!(this.pollIntervalMs > 0)) throw new Error('queue workers: pollIntervalMs must be positive');
    this.storage = options.storage;
    this.handlers = options.handlers;
    this.resolver = options.resolver ?? emptyResolver;
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock ?? systemClock;
    this.telemetry = options.telemetry ?? noTelemetry;
    this.workerId = options.workerId ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  }

  /** Starts the workers (no-op without handlers). */
  start(): void {
    if (this.state !== 'idle') throw new Error(`queue worker pool cannot start when ${this.state}`);
    this.state = 'running';
    if (this.handlers.length === 0) return;
    this.loops = Array.from({ length: this.concurrency }, (_, slot) => this.loop(slot));
    this.logger.info(
      { workerId: this.workerId, queues: this.handlers.map((h) => h.queue), concurrency: this.concurrency },
      'queue workers started',
    );
  }

  /** Wakes idle workers to poll now (e.g. right after an enqueue in this process). */
  poke(): void {
    const previous = this.wake;
    this.wake = new AbortController();
    previous.abort();
  }

  /**
   * Stops claiming, then waits for running jobs up to `stopTimeoutMs`. Jobs still running after that
   * see their signal abort; their leases expire and another worker re-runs them.
   */
  async stop(): Promise<void> {
    if (this.state !== 'running') {
      this.state = 'stopped';
      return;
    }
    this.state = 'stopped';
    this.stopping.abort();
    this.poke();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      Promise.all(this.loops).then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), this.stopTimeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      this.logger.warn({ workerId: this.workerId, running: this.running.size }, 'queue workers: stop timed out; aborting running jobs (their leases will expire)');
      for (const controller of this.running) controller.abort(new Error('queue worker pool stopped'));
    }
    this.loops = [];
  }

  private async loop(slot: number): Promise<void> {
    const ctx = systemContext(`queue-worker-${slot}`);
    while (!this.stopping.signal.aborted) {
      let claimed: { handler: QueueHandler; job: ClaimedJob } | undefined;
      try {
        claimed = await this.claimNext(ctx);
      } catch (error) {
        this.logger.warn({ workerId: this.workerId, error: message(error) }, 'queue workers: claim failed; retrying after the poll interval');
      }
      if (claimed === undefined) {
        await pause(this.pollIntervalMs * (0.8 + 0.4 * Math.random()), this.wake.signal);
        continue;
      }
      const { handler, job } = claimed;
      // With an OpenTelemetry SDK, each attempt is a span: the handler's engine, storage and webhook spans are its children.
      if (this.tracing) await inSpan(`queue job ${job.queue}`, { 'berth.queue': job.queue, 'berth.job_id': job.id, 'berth.attempt': job.attempt }, () => this.run(handler, job), SpanKind.CONSUMER);
      else await this.run(handler, job);
    }
  }

  /** Tries each queue once, starting after the one tried last, so no queue starves another. */
  private async claimNext(ctx: RequestContext): Promise<{ handler: QueueHandler; job: ClaimedJob } | undefined> {
    for (let i = 0; i < this.handlers.length; i++) {
      if (this.stopping.signal.aborted) return undefined;
      const handler = this.handlers[(this.next + i) % this.handlers.length];
      if (handler === undefined || handler.paused?.() === true) continue;
      const job = await this.storage.queue.claim(ctx, handler.queue, this.workerId, handler.leaseMs ?? DEFAULT_LEASE_MS);
      if (job === undefined) continue;
      this.stats.claimed++;
      if (this.stopping.signal.aborted) {
        await this.giveBack(job);
        return undefined;
      }
      this.next = (this.next + i + 1) % this.handlers.length;
      return { handler, job };
    }
    return undefined;
  }

  /**
   * Gives back a job whose claim was in flight when the pool began stopping: not started here, so its
   * attempt does not count (see {@link releaseUnstartedJob}). If that fails, its lease expires instead.
   */
  private async giveBack(job: ClaimedJob): Promise<void> {
    const log = { queue: job.queue, jobId: job.id, attempt: job.attempt, workerId: this.workerId };
    try {
      await releaseUnstartedJob(this.storage.queue, systemContext(`job-${job.queue}`), job.id, job.attempt);
      this.stats.released++;
      this.logger.info(log, 'queue workers: job claimed while stopping given back to the queue');
    } catch (error) {
      this.logger.warn({ ...log, error: message(error) }, 'queue workers: could not give back a job claimed while stopping; its lease will expire');
    }
  }

  /** Runs one claimed job to completion, failure or loss. Never throws. */
  private async run(handler: QueueHandler, job: ClaimedJob): Promise<void> {
    const leaseMs = handler.leaseMs ?? DEFAULT_LEASE_MS;
    const lost = new AbortController();
    this.running.add(lost);
    const system = systemContext(`job-${job.queue}`);
    let finished = false;
    let committed = false;
    let renewing = false;
    const log = { queue: job.queue, jobId: job.id, attempt: job.attempt, workerId: this.workerId };
    const startedAt = performance.now();
    let outcome: 'completed' | 'failed' | 'lost' = 'failed';
    // Created here, outside any transaction: timers keep the async context they were created in.
    const heartbeat = setInterval(() => {
      if (renewing || finished) return;
      renewing = true;
      this.storage.queue
        .renew(system, job.id, job.attempt, leaseMs)
        .catch((error: unknown) => {
          if (finished) return;
          if (isStaleAttempt(error)) {
            this.logger.warn(log, 'queue workers: lease lost to another worker; aborting the handler');
            lost.abort(error);
          } else {
            this.logger.warn({ ...log, error: message(error) }, 'queue workers: lease renewal failed');
          }
        })
        .finally(() => {
          renewing = false;
        });
    }, Math.max(10, Math.floor(leaseMs / 3)));
    const ctx: QueueJobContext = {
      requestId: `job-${job.id}-${job.attempt}`,
      signal: lost.signal,
      workerId: this.workerId,
      resolver: this.resolver,
      storage: this.storage,
      logger: this.logger,
      commit: async <T>(effect: (tx: StorageTransaction) => Promise<T>, result?: (value: T) => JsonValue | undefined): Promise<T> => {
        const value = await commitJobEffects(this.storage, ctx, job, effect, { leaseMs, ...(result === undefined ? {} : { result }) });
        committed = true;
        return value;
      },
    };
    try {
      if (handler.effects === 'exactly-once') {
        await commitJobEffects(this.storage, ctx, job, (tx) => handler.handle(ctx, job, tx), {
          leaseMs,
          result: (value) => (value === undefined ? undefined : value),
        });
      } else {
        const value = await handler.handle(ctx, job);
        if (!committed) {
          finished = true;
          await this.storage.queue.complete(system, job.id, job.attempt, value === undefined ? undefined : value);
        }
      }
      finished = true;
      this.stats.completed++;
      outcome = 'completed';
    } catch (error) {
      finished = true;
      outcome = await this.recordFailure(handler, job, error, log);
    } finally {
      finished = true;
      clearInterval(heartbeat);
      this.running.delete(lost);
      this.telemetry.queueJob({ queue: job.queue, outcome, durationSeconds: (performance.now() - startedAt) / 1000 });
    }
  }

  /** Records a failed attempt; answers `lost` when another worker had taken the job. */
  private async recordFailure(handler: QueueHandler, job: ClaimedJob, error: unknown, log: Record<string, unknown>): Promise<'failed' | 'lost'> {
    if (isStaleAttempt(error)) {
      this.stats.lost++;
      this.logger.warn(log, 'queue workers: another worker took the job; this attempt was fenced out');
      return 'lost';
    }
    const last = job.attempt >= job.maxAttempts;
    // An attempt that ended because this instance is closing (the pool stopping, or work handed over) is
    // handed back: due at once, so another instance claims it now instead of after a backoff or a lease expiry.
    const handedBack = this.state === 'stopped' || (isGatewayError(error) && error.reason === handedOverReason);
    const retryAt = new Date(this.clock.now().getTime() + (handedBack ? 0 : retryDelayMs(job.attempt, handler.backoff)));
    try {
      await this.storage.queue.fail(systemContext(`job-${job.queue}`), job.id, job.attempt, message(error), retryAt);
      this.stats.failed++;
      if (last) this.logger.error({ ...log, error: message(error) }, 'queue workers: job failed on its final attempt');
      else if (handedBack) this.logger.info(log, 'queue workers: job handed back to the queue (this instance is closing)');
      else this.logger.warn({ ...log, error: message(error), retryAt: retryAt.toISOString() }, 'queue workers: job attempt failed; will retry');
    } catch (failError) {
      if (isStaleAttempt(failError)) {
        this.stats.lost++;
        this.logger.warn(log, 'queue workers: another worker took the job before its failure was recorded');
        return 'lost';
      }
      this.logger.error({ ...log, error: message(error), failError: message(failError) }, 'queue workers: could not record the failure; the lease will expire');
    }
    return 'failed';
  }
}
