import {
  clockToken, configToken, definePlugin, egressHttpToken, idGeneratorToken, queueHandlersToken, registerResourceModules, telemetryToken, webhookOutboxToken,
  type GatewayPlugin,
} from '@berth/core';
import { resolveDeliverySchedule, type DeliveryScheduleOptions } from './delivery-schedule.js';
import { deliveryWorker } from './delivery-worker.js';
import { webhookDeliveryModule } from './webhook-delivery-api.js';
import { TransactionalWebhookOutbox } from './webhook-outbox.js';

export interface WebhooksOptions extends DeliveryScheduleOptions {
  /** Time one attempt may take: connecting, sending and the answer's headers (default 15 s). */
  readonly attemptTimeoutMs?: number;
  /** `user-agent` of every attempt (default `Berth-Webhooks/0.1`). */
  readonly userAgent?: string;
  /** The random part of backoff delays, 0–1 (default `Math.random`; tests fix it). */
  readonly random?: () => number;
}

/**
 * Signed, retried, durable webhook delivery. Binds the `WebhookOutbox` port (`webhookOutboxToken`),
 * where features record a webhook in their own storage transaction; contributes the delivery worker to the
 * durable queue (so the gateway needs `queueWorkers()` to deliver: deliveries wait in the queue until a
 * gateway with workers runs them); serves `GET /v1/accounts/{account_id}/webhookDeliveries[/{id}]`.
 *
 * Every attempt POSTs the same body with the same `webhook-id`, signed afresh (Standard Webhooks), through
 * the gateway's guarded egress client without following redirects. Attempts are retried with exponential
 * backoff and jitter (`Retry-After` honoured up to `maxRetryAfterMs`) until one answers 2xx, one answers
 * 410, the URL is refused by the egress policy, `maxAttempts` are used or the delivery's `maxAgeMs` passes.
 * @throws Error at once when an option is out of range
 */
export function webhooks(options: WebhooksOptions = {}): GatewayPlugin {
  const schedule = resolveDeliverySchedule(options);
  const timeoutMs = options.attemptTimeoutMs ?? 15_000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new Error('webhooks: attemptTimeoutMs must be a positive number of milliseconds');
  const userAgent = options.userAgent ?? 'Berth-Webhooks/0.1';
  const random = options.random ?? Math.random;
  return definePlugin({
    id: 'webhooks',
    register(binder) {
      binder.bind({
        token: webhookOutboxToken,
        deps: [configToken, clockToken, idGeneratorToken],
        factory: (config, clock, ids) =>
          new TransactionalWebhookOutbox({ allowLoopback: config.allowLoopbackUrls, allowPrivate: config.allowPrivateUrls }, clock, ids, schedule.maxAgeMs),
      });
      binder.contribute({
        token: queueHandlersToken,
        deps: [egressHttpToken, clockToken, telemetryToken],
        factory: (egress, clock, telemetry) => deliveryWorker(egress, clock, { schedule, timeoutMs, userAgent, random, telemetry }),
      });
      registerResourceModules(binder, [webhookDeliveryModule]);
    },
  });
}
