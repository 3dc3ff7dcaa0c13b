import { timingSafeEqual } from 'node:crypto';

/**
 * Observability events the gateway emits: the transport's requests and inference answers, the
 * autoscaler's decisions, queue jobs, batch rows and webhook deliveries. Every label is a fixed enum or
 * a resource name of an account (deployment, model), never a raw URL or any other caller-chosen text,
 * so a metrics back end's series stay bounded. Observers are called synchronously on hot paths: they
 * must be cheap and must not throw.
 */
export interface HttpRequestEvent {
  readonly method: string;
  /** The route's pattern (e.g. `/v1/accounts/{account_id}/models/{model_id}:deploy`), `unmatched` for unknown paths. */
  readonly route: string;
  readonly status: number;
  readonly durationSeconds: number;
}

export interface InferenceEvent {
  /** Deployment resource name (`accounts/{a}/deployments/{d}`). */
  readonly deployment: string;
  /** Model resource name the caller asked for (resolved, so it names an existing model). */
  readonly model: string;
  readonly operation: 'chat' | 'completion';
  readonly stream: boolean;
  /** HTTP status of the replica's answer. */
  readonly status: number;
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  /** Streams only: from the request's arrival to the first chunk of the answer. */
  readonly timeToFirstTokenSeconds?: number;
  /** Streams only: the gaps between consecutive chunks of the answer. */
  readonly interTokenSeconds?: readonly number[];
}

export interface AutoscalerDecisionEvent {
  readonly deployment: string;
  readonly reason: 'steady' | 'bounds' | 'cold-start' | 'scale-up' | 'scale-down' | 'scale-to-zero';
  readonly desired: number;
}

export interface QueueJobEvent {
  readonly queue: string;
  readonly outcome: 'completed' | 'failed' | 'lost';
  readonly durationSeconds: number;
}

export interface BatchRowsEvent {
  readonly outcome: 'succeeded' | 'failed';
  readonly rows: number;
}

export interface WebhookDeliveryEvent {
  readonly outcome: 'delivered' | 'retried' | 'dead-lettered';
  /** The receiver's HTTP status, absent when no answer came (connection failure, timeout, refused URL). */
  readonly status?: number;
}

/** One observer of the events above; every method is optional. Plugins contribute observers to `observersToken`. */
export interface TelemetryObserver {
  httpRequest?(event: HttpRequestEvent): void;
  inference?(event: InferenceEvent): void;
  autoscalerDecision?(event: AutoscalerDecisionEvent): void;
  queueJob?(event: QueueJobEvent): void;
  batchRows?(event: BatchRowsEvent): void;
  webhookDelivery?(event: WebhookDeliveryEvent): void;
}

/** What the gateway calls: every observer at once. `enabled` is false when none is installed, so callers skip the work of measuring. */
export interface Telemetry extends Required<TelemetryObserver> {
  readonly enabled: boolean;
}

const call = <E>(observers: readonly TelemetryObserver[], pick: (o: TelemetryObserver) => ((event: E) => void) | undefined) => {
  const targets = observers.flatMap((o) => {
    const method = pick(o);
    return method ? [method.bind(o)] : [];
  });
  if (targets.length === 0) return () => {};
  if (targets.length === 1) return targets[0]!;
  return (event: E) => {
    for (const target of targets) target(event);
  };
};

/** The fan-out of `observers` (a no-op when the list is empty). */
export function combineObservers(observers: readonly TelemetryObserver[]): Telemetry {
  return {
    enabled: observers.length > 0,
    httpRequest: call(observers, (o) => o.httpRequest),
    inference: call(observers, (o) => o.inference),
    autoscalerDecision: call(observers, (o) => o.autoscalerDecision),
    queueJob: call(observers, (o) => o.queueJob),
    batchRows: call(observers, (o) => o.batchRows),
    webhookDelivery: call(observers, (o) => o.webhookDelivery),
  };
}

/** Telemetry that records nothing (tests, and code built without a gateway). */
export const noTelemetry: Telemetry = combineObservers([]);

/**
 * Metrics the transport serves on its own port (bound by a metrics plugin). `bearerToken`, when set, is
 * required as `Authorization: Bearer <token>`; API keys do not open it.
 */
export interface MetricsEndpoint {
  /** Path on the transport's server, e.g. `/metrics`; absent when the metrics plugin serves them on a port of its own. */
  readonly path?: string;
  readonly bearerToken?: string;
  /** The exposition (e.g. Prometheus text format) and its content type. */
  render(): Promise<{ readonly contentType: string; readonly body: string }>;
}

/** True when an `Authorization` header is `Bearer <token>` (compared in constant time): the metrics' own token check. */
export function matchesBearerToken(header: string | undefined, token: string): boolean {
  if (header === undefined || !header.startsWith('Bearer ')) return false;
  const given = Buffer.from(header.slice(7));
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
