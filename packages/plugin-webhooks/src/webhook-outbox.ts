import {
  assertValidId, checkEgressUrl, formatResourceName, invalidArgument, type AddressPolicy, type Clock, type IdGenerator, type RequestContext,
  type StorageTransaction, type WebhookDeliveryReceipt, type WebhookEvent, type WebhookOutbox,
} from '@berth/core';
import { visibleUrl } from './webhook-delivery-definition.js';
import { webhookDeliveryCollection, type StoredWebhookDelivery } from './webhook-delivery-schema.js';
import { enqueueAttempt } from './webhook-queue.js';
import { webhookSigningKey } from './webhook-signature.js';

/** The longest receiver URL accepted (the specification's webhook_url limit). */
export const maxWebhookUrlLength = 2083;

/**
 * The outbox: records a delivery and queues its first attempt in the caller's transaction. The body is
 * fixed here (`{type, timestamp, data}`, the Standard Webhooks payload structure) and sent byte for byte
 * on every attempt; `timestamp` is the event's time, `webhook-timestamp` the attempt's.
 */
export class TransactionalWebhookOutbox implements WebhookOutbox {
  constructor(
    private readonly policy: AddressPolicy,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly maxAgeMs: number,
  ) {}

  async enqueue(ctx: RequestContext, tx: StorageTransaction, event: WebhookEvent): Promise<WebhookDeliveryReceipt> {
    assertValidId(event.accountId, 'accountId');
    if (typeof event.type !== 'string' || event.type.trim() === '') throw invalidArgument('webhook event type must not be empty', { field: 'type' });
    if (typeof event.url !== 'string' || event.url.length === 0 || event.url.length > maxWebhookUrlLength) {
      throw invalidArgument(`webhook_url must be 1 to ${maxWebhookUrlLength} characters`, { field: 'webhook_url', reason: 'WEBHOOK_URL_INVALID' });
    }
    const url = checkEgressUrl(event.url, this.policy).href;
    if (event.secret !== undefined) webhookSigningKey(event.secret);
    const id = this.ids.resourceId();
    const name = formatResourceName(event.accountId, webhookDeliveryCollection, id);
    const webhookId = `msg_${id}`;
    const now = this.clock.now();
    const nowIso = now.toISOString();
    const record: StoredWebhookDelivery = {
      name,
      webhookId,
      eventType: event.type,
      ...(event.subject === undefined ? {} : { subject: event.subject }),
      url: visibleUrl(url),
      signed: event.secret !== undefined,
      state: 'PENDING',
      attemptCount: 0,
      attempts: [],
      nextAttemptTime: nowIso,
      expireTime: new Date(now.getTime() + this.maxAgeMs).toISOString(),
      createTime: nowIso,
      updateTime: nowIso,
      body: JSON.stringify({ type: event.type, timestamp: nowIso, data: event.data }),
      fullUrl: url,
      ...(event.secret === undefined ? {} : { signingSecret: event.secret }),
    };
    await tx.resources.create(ctx, name, record);
    await enqueueAttempt(ctx, tx, { delivery: name, attempt: 1 });
    return { name, webhookId };
  }
}
