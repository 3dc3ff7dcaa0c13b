/**
 * Stop signals of the long jobs a queue handler runs on this instance (batch inference, fine-tuning): one
 * per piece of work, aborted when the worker loses the job (its lease) or when the instance hands its
 * work over before closing, so another instance resumes it.
 */
import type { ClaimedJob } from '../ports/storage.js';
import { AttachedRunners } from './attached-runners.js';
import { Code, GatewayError } from '../errors/index.js';
import { defineQueueHandler, handedOverReason, queueHandlerTiming, type AtLeastOnceQueueHandler, type QueueHandlerTiming, type QueueJobContext } from './queue-handler.js';

export class JobStops {
  private readonly running = new Set<AbortController>();

  constructor(private readonly handOverReason: string) {}

  /** A stop signal for work on a job: aborted by {@link handOver} or when the worker loses the job. Call `end` when the work ends. */
  open(ctx: QueueJobContext): { stop: AbortController; end: () => void } {
    const stop = new AbortController();
    this.running.add(stop);
    const onAbort = () => stop.abort();
    ctx.signal.addEventListener('abort', onAbort);
    return {
      stop,
      end: () => {
        this.running.delete(stop);
        ctx.signal.removeEventListener('abort', onAbort);
      },
    };
  }

  /** Stops every piece of work open on this instance, with the hand-over reason. */
  handOver(): void {
    for (const stop of this.running) stop.abort(this.handOverReason);
  }

  /** True when `signal` was aborted by {@link handOver}. */
  handedOver(signal: AbortSignal): boolean {
    return signal.reason === this.handOverReason;
  }

  /** Throws the hand-over error (reason `handedOverReason`: the pool hands the job back, due at once) when `signal` was aborted by {@link handOver}. */
  throwIfHandedOver(signal: AbortSignal): void {
    if (this.handedOver(signal)) throw new GatewayError(Code.UNAVAILABLE, 'the gateway instance closed; the job resumes elsewhere', { reason: handedOverReason });
  }
}

/** Waits `ms`, or less when `signal` aborts (it resolves, never rejects). */
export function sleepUnlessAborted(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * A queue handler that runs named jobs (`{name}` payloads) with a client the transport attaches later
 * (batch inference, fine-tuning: the inference proxy), and hands its work over when the instance closes.
 */
export abstract class AttachedClientJobRunner<C> {
  protected readonly clients = new AttachedRunners<C>();
  /** Stop signals of the jobs this instance runs now (aborted by {@link handOver}). */
  protected readonly stops: JobStops;
  readonly handler: AtLeastOnceQueueHandler;

  protected constructor(queue: string, timing: QueueHandlerTiming, handOverReason: string) {
    this.stops = new JobStops(handOverReason);
    this.handler = defineQueueHandler({
      queue,
      ...queueHandlerTiming(timing),
      paused: () => this.clients.closed,
      handle: async (ctx, job) => {
        const payload = job.payload;
        if (typeof payload !== 'object' || payload === null || Array.isArray(payload) || typeof payload.name !== 'string') return;
        // Claimed before the host served HTTP (just after a start): give the client a moment to attach.
        await this.clients.whenAttached(ctx.signal);
        await this.handleJob(ctx, job, payload.name);
      },
    });
  }

  /** Makes `client` run this instance's jobs (the first attached is used). Returns the detach. */
  attach(client: C): () => void {
    return this.clients.attach(client);
  }

  /**
   * Stops the jobs this instance runs without finishing them (the server is closing): their uncommitted
   * work is dropped and the attempt fails, so another instance (or this one restarted) resumes them.
   */
  handOver(): void {
    this.stops.handOver();
  }

  /** Runs the queue work of the job `name`. */
  protected abstract handleJob(ctx: QueueJobContext, queued: ClaimedJob, name: string): Promise<void>;
}
