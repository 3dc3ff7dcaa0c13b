/** Polling a resource until it reaches a final state, drawing its progress on every change. */
import { CliError } from './errors.js';
import { Progress } from './progress.js';
import type { OutputStream } from './io.js';
import type { JsonObject } from './values.js';

export interface WatchOptions {
  stream: OutputStream;
  label: string;
  intervalMs: number;
  timeoutMs: number;
  fetch: () => Promise<JsonObject>;
  /** Bar fraction (undefined: none) and detail text for one reading. */
  view: (resource: JsonObject) => { fraction: number | undefined; detail: string };
  /** 'done' ends the watch successfully, 'failed' ends it with an error, undefined keeps polling. */
  outcome: (resource: JsonObject) => 'done' | 'failed' | undefined;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until `outcome` says done (returns the last reading) or failed / timed out (throws, after drawing the last reading). */
export async function watchResource(options: WatchOptions): Promise<JsonObject> {
  const progress = new Progress(options.stream, { label: options.label });
  const sleep = options.sleep ?? defaultSleep;
  const deadline = Date.now() + options.timeoutMs;
  try {
    for (;;) {
      const resource = await options.fetch();
      const { fraction, detail } = options.view(resource);
      progress.update(fraction, detail);
      const outcome = options.outcome(resource);
      if (outcome === 'done') return resource;
      if (outcome === 'failed') {
        const status = resource.status as { message?: string } | undefined;
        const reason = status?.message ? `: ${status.message}` : '';
        throw new CliError(`${options.label} ended ${String(resource.state)}${reason}`);
      }
      if (Date.now() >= deadline) throw new CliError(`${options.label} still ${String(resource.state)} after ${Math.round(options.timeoutMs / 1000)} s (--timeout)`);
      await sleep(options.intervalMs);
    }
  } finally {
    progress.finish();
  }
}

const num = (value: unknown): number => (typeof value === 'number' ? value : typeof value === 'string' ? Number(value) || 0 : 0);

/** Deployment: state and replicas ready of desired; READY ends it, FAILED / DELETING / DELETED fail it. */
export function deploymentView(d: JsonObject): { fraction: number | undefined; detail: string } {
  const stats = (d.replicaStats ?? {}) as JsonObject;
  const ready = num(stats.readyReplicaCount);
  const desired = num(d.desiredReplicaCount ?? d.minReplicaCount);
  const fraction = desired > 0 ? ready / desired : undefined;
  return { fraction, detail: `${String(d.state)} replicas ${ready}/${desired} ready (replicaCount ${num(d.replicaCount)})` };
}

export function deploymentOutcome(d: JsonObject): 'done' | 'failed' | undefined {
  if (d.state === 'READY') return 'done';
  if (d.state === 'FAILED' || d.state === 'DELETING' || d.state === 'DELETED') return 'failed';
  return undefined;
}

const DONE_JOB_STATES = new Set(['JOB_STATE_COMPLETED']);
const FAILED_JOB_STATES = new Set(['JOB_STATE_FAILED', 'JOB_STATE_CANCELLED', 'JOB_STATE_EXPIRED', 'JOB_STATE_EARLY_STOPPED', 'JOB_STATE_DELETING']);

/** Job: jobProgress.percent as the bar, state and request counters as the detail. */
export function jobView(job: JsonObject): { fraction: number | undefined; detail: string } {
  const p = (job.jobProgress ?? {}) as JsonObject;
  const state = String(job.state ?? '').replace(/^JOB_STATE_/, '');
  const parts = [state];
  const total = num(p.totalInputRequests);
  if (total > 0) parts.push(`${num(p.totalProcessedRequests)}/${total} requests`);
  if (num(p.failedRequests) > 0) parts.push(`${num(p.failedRequests)} failed`);
  if (p.epoch !== undefined && num(p.epoch) > 0) parts.push(`epoch ${num(p.epoch)}`);
  const fraction = p.percent === undefined ? (total > 0 ? num(p.totalProcessedRequests) / total : 0) : num(p.percent) / 100;
  return { fraction, detail: parts.join(' ') };
}

export function jobOutcome(job: JsonObject): 'done' | 'failed' | undefined {
  const state = String(job.state);
  if (DONE_JOB_STATES.has(state)) return 'done';
  if (FAILED_JOB_STATES.has(state)) return 'failed';
  return undefined;
}

/** A kind of long work: how one reading is drawn, when it is over, and the help of `watch` / `--wait`. */
export interface WatchKind {
  view: (resource: JsonObject) => { fraction: number | undefined; detail: string };
  outcome: (resource: JsonObject) => 'done' | 'failed' | undefined;
  watchHelp: string;
  waitHelp: string;
}

export const watchKinds = {
  deployment: { view: deploymentView, outcome: deploymentOutcome, watchHelp: 'show state and replicas until READY', waitHelp: 'wait until READY, showing state and replicas' },
  job: { view: jobView, outcome: jobOutcome, watchHelp: 'show jobProgress as a live bar until the job ends', waitHelp: 'follow the job until it ends' },
  /** A resource built once (evaluators): its state until ACTIVE; BUILD_FAILED fails. */
  build: {
    view: (r) => ({ fraction: undefined, detail: String(r.state) }),
    outcome: (r) => (r.state === 'ACTIVE' ? 'done' : r.state === 'BUILD_FAILED' ? 'failed' : undefined),
    watchHelp: 'show the state until ACTIVE',
    waitHelp: 'wait until ACTIVE (built)',
  },
} as const satisfies Record<string, WatchKind>;

export type WatchKindName = keyof typeof watchKinds;
