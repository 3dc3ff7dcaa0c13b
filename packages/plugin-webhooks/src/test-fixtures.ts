import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Webhook } from 'standardwebhooks';
import {
  createGateway, definePlugin, queueWorkers, storageToken, systemContext, webhookOutboxToken, type Gateway, type GatewayPlugin, type Storage,
  type WebhookDeliveryReceipt, type WebhookEvent,
} from '@berth/core';
import { staticTokenAuth, type ManualClock } from '@berth/core/testing';
import { webhooks, type WebhooksOptions } from './webhooks-plugin.js';
import { webhookDeliveryServiceToken } from './webhook-delivery-api.js';
import type { WebhookDelivery } from './webhook-delivery-schema.js';

/** Test helpers of the webhook plugin (not exported from the package). */

export const systemCtx = systemContext('webhook-test');

/** A request the receiver got. */
export interface ReceivedWebhook {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** What the receiver does with its n-th request to /hook (0-based); the last behaviour repeats. */
export type ReceiverBehaviour = 'ok' | 'fail-500' | 'hang' | 'reset' | 'retry-after-30' | 'redirect' | 'gone';

export interface Receiver {
  readonly url: string;
  readonly origin: string;
  readonly received: ReceivedWebhook[];
  /** Requests to /hook. */
  hooks(): ReceivedWebhook[];
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 that behaves as told, request by request. */
export async function startReceiver(behaviours: readonly ReceiverBehaviour[]): Promise<Receiver> {
  const received: ReceivedWebhook[] = [];
  const held: ServerResponse[] = [];
  let hookCount = 0;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = new URL(request.url ?? '/', 'http://receiver').pathname;
      received.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (path !== '/hook') return void response.end('not the hook');
      const behaviour = behaviours[Math.min(hookCount, behaviours.length - 1)] ?? 'ok';
      hookCount += 1;
      switch (behaviour) {
        case 'ok':
          response.statusCode = 204;
          return void response.end();
        case 'fail-500':
          response.statusCode = 500;
          return void response.end('broken');
        case 'hang':
          held.push(response);
          return;
        case 'reset':
          return void request.socket.destroy();
        case 'retry-after-30':
          response.statusCode = 429;
          response.setHeader('retry-after', '30');
          return void response.end('slow down');
        case 'redirect':
          response.statusCode = 302;
          response.setHeader('location', '/elsewhere');
          return void response.end();
        case 'gone':
          response.statusCode = 410;
          return void response.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${String(port)}`;
  return {
    url: `${origin}/hook?token=receiver-secret`,
    origin,
    received,
    hooks: () => received.filter((r) => r.path === '/hook'),
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of held) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Binds one shared store, so two gateways (a restart) see the same data. */
export function sharedStorage(storage: Storage): GatewayPlugin {
  return definePlugin({ id: 'storage-shared', register: (binder) => binder.bindValue(storageToken, storage) });
}

export const fastSchedule: WebhooksOptions = {
  attemptTimeoutMs: 300,
  maxAttempts: 8,
  backoff: { initialMs: 1000, multiplier: 2, maxMs: 60_000, jitter: 0.2 },
  maxRetryAfterMs: 120_000,
  random: () => 0.5,
};

/** A gateway with the webhooks plugin on `storage`, loopback URLs allowed unless told; workers polling every 10 ms unless `workers` is false. */
export function webhookGateway(storage: GatewayPlugin, clock: ManualClock | undefined, options: { workers?: boolean; webhooks?: WebhooksOptions; allowLoopbackUrls?: boolean } = {}): Gateway {
  return createGateway({
    plugins: [
      storage,
      ...(options.workers === false ? [] : [queueWorkers({ pollIntervalMs: 10, stopTimeoutMs: 2_000 })]),
      staticTokenAuth({}),
      webhooks({ ...fastSchedule, ...options.webhooks }),
    ],
    config: { pageTokenSecret: 'webhook-test-page-tokens', allowLoopbackUrls: options.allowLoopbackUrls ?? true },
    ...(clock === undefined ? {} : { clock }),
  });
}

/** Records `event` in a storage transaction of `gateway`, as a feature would with its result. */
export async function emit(gateway: Gateway, event: WebhookEvent): Promise<WebhookDeliveryReceipt> {
  const outbox = gateway.resolve(webhookOutboxToken);
  return gateway.resolve(storageToken).transaction(systemCtx, (tx) => outbox.enqueue(systemCtx, tx, event));
}

export function readDelivery(gateway: Gateway, name: string): Promise<WebhookDelivery> {
  return gateway.resolve(webhookDeliveryServiceToken).get(systemCtx, name);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/**
 * Runs a delivery to its end under a manual clock: after each recorded attempt, moves the clock to the
 * delivery's `nextAttemptTime` (so the queue finds the next attempt due), until it is no longer PENDING.
 */
export async function driveToEnd(gateway: Gateway, name: string, clock: ManualClock, maxAttempts = 20): Promise<WebhookDelivery> {
  let seen = 0;
  for (let step = 0; step <= maxAttempts; step++) {
    let delivery = await readDelivery(gateway, name);
    await waitFor(async () => {
      delivery = await readDelivery(gateway, name);
      return (delivery.attemptCount ?? 0) > seen || delivery.state !== 'PENDING';
    }, `attempt ${String(seen + 1)} of ${name}`);
    if (delivery.state !== 'PENDING') return delivery;
    seen = delivery.attemptCount ?? 0;
    clock.advance(Date.parse(delivery.nextAttemptTime ?? '') - clock.now().getTime());
  }
  throw new Error(`${name} still pending after ${String(maxAttempts)} attempts`);
}

/** Verifies a received webhook with the standardwebhooks package; answers the parsed body. */
export function verifyReceived(received: ReceivedWebhook, verifier: Webhook): unknown {
  const headers: Record<string, string> = {};
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const value = received.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return verifier.verify(received.body, headers);
}
