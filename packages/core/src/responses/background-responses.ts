/**
 * `background: true` responses run on the durable queue: the create stores the response `queued` and
 * enqueues a job in the same transaction; whichever gateway instance's queue workers claim the job run
 * the response's turns and store the outcome. A job whose worker died is claimed again once its lease
 * expires (attempt + 1) and runs the response from the start.
 */
import { AttachedRunners } from '../workers/attached-runners.js';
import { Code, GatewayError, renderInferenceError } from '../errors/index.js';
import type { ClaimedJob, EnqueueRequest } from '../ports/storage.js';
import type { BackoffOptions } from '../workers/backoff.js';
import { defineQueueHandler, queueHandlerTiming, type AtLeastOnceQueueHandler, type QueueJobContext } from '../workers/queue-handler.js';
import { isActiveStatus, ResponseStore } from './response-store.js';
import type { ResponseObject } from './response-types.js';

/** The durable queue of background responses. */
export const backgroundResponsesQueue = 'berth.responses.background';

/** A background response job's payload: the response's record name. */
export interface BackgroundResponseJob {
  readonly name: string;
}

/** The job that runs the background response stored at `name` (one per response: the name dedupes it). */
export function backgroundResponseJob(name: string): EnqueueRequest {
  const payload: BackgroundResponseJob = { name };
  return { queue: backgroundResponsesQueue, payload: { ...payload }, dedupeKey: name };
}

/** What runs a background response on this instance: the Responses service the HTTP transport built. */
export interface BackgroundResponseRunner {
  /**
   * Runs the stored background response `name` to a terminal status (or leaves it when it is no longer
   * queued or in progress). Throws what the pool should retry (storage unavailable, the lease lost).
   */
  runBackground(ctx: QueueJobContext, name: string): Promise<void>;
}

export interface BackgroundResponsesOptions {
  /** Lease of a claimed job (renewed while it runs): how long a dead worker's response waits to be retried. Default 30 s. */
  readonly leaseMs?: number;
  /** Delays before a failed attempt is retried (default: 1 s, doubling). */
  readonly backoff?: BackoffOptions;
}

/**
 * The background responses' queue handler and the runner it hands jobs to. Core contributes the handler
 * to `queueHandlersToken`; the component that can reach models (the HTTP transport's Responses service,
 * over its inference proxy) attaches itself as the runner. A job claimed while nothing is attached (an
 * instance that runs queue workers but serves no inference) is failed and retried later, when another
 * instance may claim it; on its last attempt the response is stored `failed`. Once the runner detached
 * (the server closes), this instance's workers claim no more of these jobs.
 */
export class BackgroundResponses {
  private readonly runners = new AttachedRunners<BackgroundResponseRunner>();
  readonly handler: AtLeastOnceQueueHandler;

  constructor(options: BackgroundResponsesOptions = {}) {
    this.handler = defineQueueHandler({
      queue: backgroundResponsesQueue,
      ...queueHandlerTiming(options),
      paused: () => this.runners.closed,
      handle: (ctx, job) => this.handle(ctx, job),
    });
  }

  /** Makes `runner` run this instance's background jobs (the first attached runs them). Returns the detach. */
  attach(runner: BackgroundResponseRunner): () => void {
    return this.runners.attach(runner);
  }

  private async handle(ctx: QueueJobContext, job: ClaimedJob): Promise<void> {
    const name = nameOf(job);
    if (name === undefined) return; // Not a job this handler wrote: nothing to run.
    try {
      const runner = await this.runners.whenAttached(ctx.signal);
      if (!runner) throw new GatewayError(Code.UNAVAILABLE, 'this gateway instance serves no Responses API to run background responses', { reason: 'NO_RUNNER' });
      await runner.runBackground(ctx, name);
    } catch (error) {
      if (job.attempt >= job.maxAttempts && !ctx.signal.aborted) await failForGood(ctx, name, error);
      throw error;
    }
  }
}

function nameOf(job: ClaimedJob): string | undefined {
  const payload = job.payload;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  return typeof payload.name === 'string' ? payload.name : undefined;
}

/** On the job's last attempt: the response ends `failed` rather than staying queued or in progress forever. */
async function failForGood(ctx: QueueJobContext, name: string, error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  const store = new ResponseStore(ctx.storage.resources, ctx.storage);
  await store
    .transition(ctx, name, (current): ResponseObject | undefined =>
      isActiveStatus(current.status)
        ? { ...current, status: 'failed', error: { type: 'server_error', code: 'server_error', message: `the background response could not be run: ${message}` } }
        : undefined)
    .catch((failure: unknown) => ctx.logger.warn({ name, err: String(failure) }, 'background response: could not record its final failure'));
}

/** A failed outcome's error from a thrown gateway error, as a failed response shows it. */
export function responseErrorOf(error: GatewayError): { type: string; code: string; message: string } {
  const { type, code, message } = renderInferenceError(error).body.error;
  return { type, code: code ?? 'server_error', message };
}
