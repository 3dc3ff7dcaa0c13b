import { commonFields, type FieldDeclarations, type ResourceDefinition } from '@berth/core';
import { webhookDeliveryCollection, webhookDeliverySchema, webhookDeliveryStateValues, type StoredWebhookDelivery, type WebhookDelivery } from './webhook-delivery-schema.js';

export const webhookDeliveryFields: FieldDeclarations = {
  ...commonFields,
  webhookId: { path: ['webhookId'], type: 'string' },
  eventType: { path: ['eventType'], type: 'string' },
  subject: { path: ['subject'], type: 'string' },
  state: { path: ['state'], type: 'enum', enumValues: webhookDeliveryStateValues },
  attemptCount: { path: ['attemptCount'], type: 'int' },
  nextAttemptTime: { path: ['nextAttemptTime'], type: 'timestamp' },
  completeTime: { path: ['completeTime'], type: 'timestamp' },
};

/** The receiver as callers see it: no query string, no fragment. */
export function visibleUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '';
  }
}

/** The stored record without what callers never see. */
export function presentDelivery(data: WebhookDelivery): WebhookDelivery {
  const { body: _body, signingSecret: _secret, fullUrl: _fullUrl, ...visible } = data as StoredWebhookDelivery;
  return visible;
}

/**
 * Webhook deliveries: read-only resources (get and list) written by the webhook outbox and its delivery
 * worker, never by clients. Newest first by default.
 */
export const webhookDeliveryDefinition: ResourceDefinition<WebhookDelivery> = {
  collection: webhookDeliveryCollection,
  singular: 'webhookDelivery',
  schema: webhookDeliverySchema,
  outputOnly: Object.keys(webhookDeliverySchema.properties),
  immutable: [],
  fields: webhookDeliveryFields,
  defaultOrder: 'create_time desc',
  present: presentDelivery,
};
