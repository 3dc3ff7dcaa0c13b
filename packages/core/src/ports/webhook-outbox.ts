import type { RequestContext } from '../contracts/request-context.js';
import type { JsonObject } from '../contracts/json.js';
import type { StorageTransaction } from './storage.js';

/** One event for one receiver, as a feature hands it to the webhook outbox. */
export interface WebhookEvent {
  /** The account the delivery belongs to: its record is `accounts/{accountId}/webhookDeliveries/{id}`. */
  readonly accountId: string;
  /** The receiver, `http:` or `https:`; every attempt goes through the guarded egress client. */
  readonly url: string;
  /**
   * The signing secret (Standard Webhooks): `whsec_<base64>` is used as the base64-decoded bytes after
   * the prefix, any other string as its UTF-8 bytes. Absent: the webhook is sent without `webhook-signature`.
   */
  readonly secret?: string;
  /** Event type, e.g. `image.ready`: the body's `type`. */
  readonly type: string;
  /** The body's `data`. */
  readonly data: JsonObject;
  /** What the event is about (a request id, a resource name): shown on the delivery, filterable. */
  readonly subject?: string;
}

/** What the outbox recorded: the delivery's resource name and the `webhook-id` every attempt carries. */
export interface WebhookDeliveryReceipt {
  readonly name: string;
  readonly webhookId: string;
}

/**
 * The transactional outbox of webhooks: a feature that ends some work (an asynchronous image request
 * reaching Ready, Error or moderated) records the webhook in the same storage transaction as its result,
 * so the result and the promise to deliver it commit or roll back together. Delivery happens afterwards,
 * at least once, on the durable queue (`@berth/plugin-webhooks` implements it and binds
 * `webhookOutboxToken`; resolve it with `optional(webhookOutboxToken)` when webhooks are optional).
 */
export interface WebhookOutbox {
  /**
   * Records the delivery of `event` through `tx` (its record and its first queued attempt). Nothing is
   * sent before `tx` commits; nothing is left when it rolls back.
   * @throws GatewayError INVALID_ARGUMENT for a URL the egress policy refuses as written (scheme,
   *   credentials, a refused IP literal), a URL longer than 2083 characters, an empty type or an invalid
   *   account id; whatever the storage transaction throws.
   */
  enqueue(ctx: RequestContext, tx: StorageTransaction, event: WebhookEvent): Promise<WebhookDeliveryReceipt>;
}
