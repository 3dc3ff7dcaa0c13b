import { durationSchema, etagSchema, nameSchema, nonNegativeInt32Schema, timestampSchema, type ResourceType } from '@berth/core';

export const webhookDeliveryStateValues = ['STATE_UNSPECIFIED', 'PENDING', 'SUCCEEDED', 'FAILED'] as const;
export type WebhookDeliveryState = (typeof webhookDeliveryStateValues)[number];

/** One attempt of a delivery, as recorded after it ended. */
export const webhookAttemptSchema = {
  type: 'object',
  properties: {
    attempt: { ...nonNegativeInt32Schema, description: 'Attempt number, from 1.' },
    attemptTime: { ...timestampSchema, description: 'When the request was started (also its webhook-timestamp).' },
    duration: { ...durationSchema, description: 'How long the attempt took, e.g. "0.084s".' },
    statusCode: { ...nonNegativeInt32Schema, description: 'HTTP status of the answer; absent when there was none.' },
    error: { type: 'string', description: 'Why the attempt failed; absent on success.' },
  },
} as const;

/**
 * A webhook delivery: one event for one receiver, and every attempt made to deliver it. Everything is
 * output only: deliveries are made by the features that emit events (e.g. asynchronous image requests).
 */
export const webhookDeliverySchema = {
  type: 'object',
  properties: {
    name: nameSchema,
    webhookId: { type: 'string', description: 'The webhook-id header of every attempt (receivers deduplicate on it).' },
    eventType: { type: 'string', description: 'The event type, also the body\'s "type".' },
    subject: { type: 'string', description: 'What the event is about, e.g. the request id.' },
    url: { type: 'string', description: 'The receiver, without its query string (which often carries a token).' },
    signed: { type: 'boolean', description: 'Whether attempts carry webhook-signature (a secret was given).' },
    state: { type: 'string', enum: webhookDeliveryStateValues },
    attemptCount: nonNegativeInt32Schema,
    attempts: { type: 'array', items: webhookAttemptSchema },
    nextAttemptTime: { ...timestampSchema, description: 'When the next attempt starts (while PENDING).' },
    expireTime: { ...timestampSchema, description: 'No attempt starts after this time: the delivery then fails.' },
    completeTime: { ...timestampSchema, description: 'When the delivery succeeded or failed for good.' },
    failureReason: { type: 'string', description: 'Why a FAILED delivery stopped.' },
    createTime: timestampSchema,
    updateTime: timestampSchema,
    etag: etagSchema,
  },
} as const;

export type WebhookDelivery = ResourceType<typeof webhookDeliverySchema>;
export type WebhookAttempt = NonNullable<WebhookDelivery['attempts']>[number];

/**
 * The stored record: the resource plus what attempts need and callers never see (the exact body sent,
 * the signing secret). `present` strips them.
 */
export type StoredWebhookDelivery = WebhookDelivery & { body: string; signingSecret?: string; fullUrl: string };

export const webhookDeliveryCollection = 'webhookDeliveries';
