import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { queueWorkers, storageToken, systemContext, webhookOutboxToken } from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { webhookDeliverySchema, webhooks } from '@berth/plugin-webhooks';
import { account, startHarness, undeclaredFields, userWithKey, type Harness } from './harness.js';
import { rememberSecret } from './log-capture.js';

/**
 * Webhook delivery through a served gateway: an event recorded in a storage transaction (as the
 * asynchronous image endpoint will) reaches a loopback receiver that fails once, signed per Standard
 * Webhooks, and its delivery with both attempts is readable at /v1/accounts/{a}/webhookDeliveries.
 */
const secret = `whsec_${Buffer.from('thirty-two bytes of webhook key!').toString('base64')}`;
rememberSecret(secret);
const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
    response.statusCode = received.length === 1 ? 503 : 200;
    response.end();
  });
});
let hookUrl = '';
let h: Harness;

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${String((receiver.address() as AddressInfo).port)}/hook?token=t0p`;
  h = await startHarness({
    plugins: [
      memoryStorage(), queueWorkers({ pollIntervalMs: 20 }), apiKeyAuth({ cacheTtlMs: 0 }),
      webhooks({ attemptTimeoutMs: 5_000, backoff: { initialMs: 50, jitter: 0 } }),
    ],
    config: { allowLoopbackUrls: true },
  });
});
afterAll(async () => {
  await h.close();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

describe('webhooks over HTTP', () => {
  it('delivers a recorded event and shows the delivery with its attempts', async () => {
    const ctx = systemContext('e2e-webhooks');
    const outbox = h.gateway.resolve(webhookOutboxToken);
    const receipt = await h.gateway.resolve(storageToken).transaction(ctx, (tx) =>
      outbox.enqueue(ctx, tx, { accountId: account, url: hookUrl, secret, type: 'image.ready', subject: 'req-e2e', data: { id: 'req-e2e', status: 'Ready' } }),
    );
    const path = `/v1/${receipt.name}`;
    for (let i = 0; i < 500; i++) {
      const { body } = await h.call<{ state: string }>('GET', path);
      if (body.state !== 'PENDING') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const delivery = await h.call<Record<string, unknown> & { attempts: Array<{ statusCode: number }> }>('GET', path);
    expect(delivery.status).toBe(200);
    expect(delivery.body).toMatchObject({ name: receipt.name, webhookId: receipt.webhookId, state: 'SUCCEEDED', attemptCount: 2, url: hookUrl.split('?')[0] });
    expect(delivery.body.attempts.map((a) => a.statusCode)).toEqual([503, 200]);
    expect(undeclaredFields(delivery.body, webhookDeliverySchema)).toEqual([]);

    expect(received).toHaveLength(2);
    for (const { headers, body } of received) {
      const signed = { 'webhook-id': String(headers['webhook-id']), 'webhook-timestamp': String(headers['webhook-timestamp']), 'webhook-signature': String(headers['webhook-signature']) };
      expect(new Webhook(secret).verify(body, signed)).toMatchObject({ type: 'image.ready', data: { id: 'req-e2e' } });
    }

    const list = await h.call<{ webhookDeliveries: Array<{ name: string }>; totalSize: number }>('GET', `/v1/accounts/${account}/webhookDeliveries?filter=${encodeURIComponent('subject = "req-e2e"')}`);
    expect(list.status).toBe(200);
    expect(list.body.webhookDeliveries.map((d) => d.name)).toEqual([receipt.name]);
    expect((await h.call('GET', `/v1/accounts/other/webhookDeliveries`)).status).toBe(403);
    expect((await h.call('GET', `/v1/accounts/${account}/webhookDeliveries/nope`)).status).toBe(404);
    const inferenceKey = await userWithKey(h, 'infer', 'inference-user');
    expect((await h.call('GET', path, { key: inferenceKey })).status).toBe(403);
    expect((await h.call('POST', `/v1/accounts/${account}/webhookDeliveries`, { body: {} })).status).toBe(404);
  });

  it('documents the delivery API in the OpenAPI document (read-only, plural operation id)', async () => {
    const document = (await h.call<{ paths: Record<string, Record<string, { operationId: string }>> }>('GET', '/openapi.json')).body;
    const collection = document.paths['/v1/accounts/{account_id}/webhookDeliveries'];
    const item = document.paths['/v1/accounts/{account_id}/webhookDeliveries/{webhook_delivery_id}'];
    expect(Object.keys(collection ?? {})).toEqual(['get']);
    expect(collection?.get?.operationId).toBe('listWebhookDeliveries');
    expect(Object.keys(item ?? {})).toEqual(['get']);
    expect(item?.get?.operationId).toBe('getWebhookDelivery');
  });
});
