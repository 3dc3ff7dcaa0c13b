import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { RequestDurations, ScrapedHistogram, type HistogramSeries } from './request-durations.js';
import type {
  AutoscalerDecisionEvent, BatchRowsEvent, HttpRequestEvent, InferenceEvent, QueueJobEvent, StorageStats, TelemetryObserver,
  WebhookDeliveryEvent,
} from '@berth/core';

/** Latency buckets (seconds) for HTTP requests and queue jobs: 1 ms to 60 s. */
const requestBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Time to first token: 10 ms to 60 s. */
const firstTokenBuckets = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Gaps between tokens: 1 ms to 2.5 s. */
const interTokenBuckets = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.25, 2.5];

/** Inference calls and tokens of one deployment and model, counted between scrapes' readings. */
interface InferenceTally {
  readonly labels: { readonly deployment: string; readonly model: string };
  /** Calls by operation, streaming and status. */
  readonly outcomes: Map<string, { readonly labels: { readonly operation: string; readonly stream: string; readonly status: string }; count: number }>;
  /** Undefined until a call reports usage (the series then appears). */
  promptTokens?: number;
  completionTokens?: number;
  /** Streamed answers' series, created at the first stream. */
  firstToken?: HistogramSeries;
  interToken?: HistogramSeries;
}

/**
 * A counter whose values the gateway tallies in plain numbers and hands over at each scrape (`fill`).
 * Its `reset()` — prom-client's `registry.resetMetrics()` calls it — also zeroes the tallies (`zero`), so a
 * reset counter starts again from nothing instead of coming back at the next scrape.
 */
function talliedCounter(
  name: string, help: string, labelNames: readonly string[], registry: Registry,
  fill: (counter: Counter<string>) => void, zero: () => void,
): Counter<string> {
  const clear = (counter: Counter<string>) => Counter.prototype.reset.call(counter);
  const counter: Counter<string> = new Counter({
    name, help, labelNames, registers: [registry],
    collect: () => {
      clear(counter);
      fill(counter);
    },
  });
  counter.reset = () => {
    zero();
    clear(counter);
  };
  return counter;
}

/** What the gauges read at scrape time. */
export interface GaugeReadings {
  readonly replicas: readonly { readonly deployment: string; readonly phase: string; readonly count: number }[];
  /** Undefined when the storage adapter reports no stats, or reading them failed (`storageUp` then says which). */
  readonly storage?: StorageStats;
  /** 1 when the storage answered the scrape's read, 0 when it failed; undefined when it reports no stats. */
  readonly storageUp?: 0 | 1;
}

/**
 * Every Berth metric in one prom-client {@link Registry} of its own (never the global one: two gateways in
 * one process keep separate figures). Observes the gateway's telemetry events; gauges are set from
 * {@link GaugeReadings} just before each scrape. Labels are fixed enums and account resource names only.
 */
export class GatewayMetrics implements TelemetryObserver {
  readonly registry = new Registry();
  private readonly httpDuration = new RequestDurations(
    'berth_http_request_duration_seconds', 'Time from a request\'s arrival to its answer\'s end, by method, route pattern and status.',
    requestBuckets, this.registry,
  );
  // The request count is the duration histogram's count: read from it at each scrape rather than counted
  // a second time on every request's hot path.
  private readonly httpRequests = new Counter({
    name: 'berth_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'], registers: [this.registry],
    collect: () => {
      this.httpRequests.reset();
      for (const { labels, count } of this.httpDuration.counts()) this.httpRequests.inc(labels, count);
    },
  });
  // Inference calls and tokens are tallied per series in plain numbers (no label object hashed and
  // validated per call, as prom-client's `inc` does) and handed to the counters at each scrape.
  private readonly inferenceTallies = new Map<string, InferenceTally>();
  private readonly inferenceRequests = talliedCounter(
    'berth_inference_requests_total', 'Inference calls a model replica answered, by deployment, model, operation, streaming and status.',
    ['deployment', 'model', 'operation', 'stream', 'status'], this.registry,
    (counter) => {
      for (const { labels, outcomes } of this.inferenceTallies.values()) {
        for (const outcome of outcomes.values()) counter.inc({ ...labels, ...outcome.labels }, outcome.count);
      }
    },
    () => {
      for (const tally of this.inferenceTallies.values()) tally.outcomes.clear();
    },
  );
  private readonly promptTokens = this.tokenCounter('berth_inference_prompt_tokens_total', 'Tokens in (prompt), as the replica\'s usage reports them.', 'promptTokens');
  private readonly completionTokens = this.tokenCounter('berth_inference_completion_tokens_total', 'Tokens out (completion), as the replica\'s usage reports them.', 'completionTokens');
  // Streamed answers observe one gap per chunk: histograms whose series the tally keeps (see ScrapedHistogram).
  private readonly firstToken = new ScrapedHistogram('berth_inference_time_to_first_token_seconds', 'Streamed answers: from the request\'s arrival to the first chunk of the answer.', firstTokenBuckets, this.registry);
  private readonly interToken = new ScrapedHistogram('berth_inference_inter_token_latency_seconds', 'Streamed answers: the gaps between consecutive chunks.', interTokenBuckets, this.registry);
  private readonly replicas = new Gauge({
    name: 'berth_replicas', help: 'Replicas of each deployment by phase (pending_scheduling, downloading, initializing, ready, failed, stopped).',
    labelNames: ['deployment', 'phase'], registers: [this.registry],
  });
  private readonly autoscalerDecisions = new Counter({
    name: 'berth_autoscaler_decisions_total', help: 'Autoscaler decisions that changed a deployment\'s desired replica count, by reason.',
    labelNames: ['deployment', 'reason'], registers: [this.registry],
  });
  private readonly desiredReplicas = new Gauge({
    name: 'berth_autoscaler_desired_replicas', help: 'The replica count the autoscaler last decided on.',
    labelNames: ['deployment'], registers: [this.registry],
  });
  private readonly queueJobs = new Gauge({
    name: 'berth_queue_jobs', help: 'Jobs of the durable queue not yet completed, by queue and state (queued is the queue depth; failed are dead-lettered).',
    labelNames: ['queue', 'state'], registers: [this.registry],
  });
  private readonly jobRuns = new Counter({
    name: 'berth_queue_job_runs_total', help: 'Job attempts this instance ran, by queue and outcome (completed, failed, lost to another worker).',
    labelNames: ['queue', 'outcome'], registers: [this.registry],
  });
  private readonly jobDuration = new Histogram({
    name: 'berth_queue_job_duration_seconds', help: 'Duration of job attempts, by queue and outcome.',
    labelNames: ['queue', 'outcome'], buckets: requestBuckets, registers: [this.registry],
  });
  private readonly batchRowCount = new Counter({
    name: 'berth_batch_rows_total', help: 'Batch inference rows processed, by outcome.',
    labelNames: ['outcome'], registers: [this.registry],
  });
  private readonly webhookDeliveries = new Counter({
    name: 'berth_webhook_deliveries_total', help: 'Webhook delivery attempts by outcome (delivered, retried, dead-lettered).',
    labelNames: ['outcome'], registers: [this.registry],
  });
  private readonly storageUp = new Gauge({
    name: 'berth_storage_up', help: '1 when the storage answered the last scrape\'s read, 0 when it failed.', registers: [this.registry],
  });
  private readonly poolConnections = new Gauge({
    name: 'berth_storage_pool_connections', help: 'Storage connection pool: open (total), idle, and callers waiting for a connection.',
    labelNames: ['state'], registers: [this.registry],
  });
  private readonly poolMax = new Gauge({
    name: 'berth_storage_pool_max_connections', help: 'Storage connection pool size limit.', registers: [this.registry],
  });

  constructor(options: { readonly processMetrics?: boolean } = {}) {
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'berth_' });
  }

  httpRequest(event: HttpRequestEvent): void {
    this.httpDuration.record(event.method, event.route, event.status, event.durationSeconds);
  }

  /** A tokens counter per deployment and model, read from the tallies' `field` (a series appears with its first usage). */
  private tokenCounter(name: string, help: string, field: 'promptTokens' | 'completionTokens'): Counter<string> {
    return talliedCounter(
      name, help, ['deployment', 'model'], this.registry,
      (counter) => {
        for (const tally of this.inferenceTallies.values()) if (tally[field] !== undefined) counter.inc(tally.labels, tally[field]);
      },
      () => {
        for (const tally of this.inferenceTallies.values()) delete tally[field];
      },
    );
  }

  inference(event: InferenceEvent): void {
    const key = `${event.deployment}\u0000${event.model}`;
    let tally = this.inferenceTallies.get(key);
    if (tally === undefined) {
      tally = { labels: { deployment: event.deployment, model: event.model }, outcomes: new Map() };
      this.inferenceTallies.set(key, tally);
    }
    const outcomeKey = `${event.operation} ${event.stream} ${event.status}`;
    let outcome = tally.outcomes.get(outcomeKey);
    if (outcome === undefined) {
      outcome = { labels: { operation: event.operation, stream: String(event.stream), status: String(event.status) }, count: 0 };
      tally.outcomes.set(outcomeKey, outcome);
    }
    outcome.count += 1;
    if (event.promptTokens !== undefined) tally.promptTokens = (tally.promptTokens ?? 0) + event.promptTokens;
    if (event.completionTokens !== undefined) tally.completionTokens = (tally.completionTokens ?? 0) + event.completionTokens;
    if (event.timeToFirstTokenSeconds !== undefined) {
      tally.firstToken ??= this.firstToken.createSeries(tally.labels);
      this.firstToken.observe(tally.firstToken, event.timeToFirstTokenSeconds);
    }
    if (event.interTokenSeconds !== undefined && event.interTokenSeconds.length > 0) {
      tally.interToken ??= this.interToken.createSeries(tally.labels);
      for (const gap of event.interTokenSeconds) this.interToken.observe(tally.interToken, gap);
    }
  }

  autoscalerDecision(event: AutoscalerDecisionEvent): void {
    this.autoscalerDecisions.inc({ deployment: event.deployment, reason: event.reason });
    this.desiredReplicas.set({ deployment: event.deployment }, event.desired);
  }

  queueJob(event: QueueJobEvent): void {
    const labels = { queue: event.queue, outcome: event.outcome };
    this.jobRuns.inc(labels);
    this.jobDuration.observe(labels, event.durationSeconds);
  }

  batchRows(event: BatchRowsEvent): void {
    this.batchRowCount.inc({ outcome: event.outcome }, event.rows);
  }

  webhookDelivery(event: WebhookDeliveryEvent): void {
    this.webhookDeliveries.inc({ outcome: event.outcome });
  }

  /** Sets the gauges from `readings` (series that vanished, such as a deleted deployment's, are dropped). */
  setGauges(readings: GaugeReadings): void {
    this.replicas.reset();
    for (const { deployment, phase, count } of readings.replicas) this.replicas.set({ deployment, phase }, count);
    if (readings.storageUp !== undefined) this.storageUp.set(readings.storageUp);
    if (readings.storage === undefined) return;
    this.queueJobs.reset();
    for (const { queue, state, count } of readings.storage.jobs) this.queueJobs.set({ queue, state }, count);
    const pool = readings.storage.pool;
    if (pool !== undefined) {
      this.poolConnections.set({ state: 'total' }, pool.total);
      this.poolConnections.set({ state: 'idle' }, pool.idle);
      this.poolConnections.set({ state: 'waiting' }, pool.waiting);
      this.poolMax.set(pool.max);
    }
  }
}
