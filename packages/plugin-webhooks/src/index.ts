export * from './webhooks-plugin.js';
export * from './webhook-signature.js';
export * from './delivery-schedule.js';
export * from './webhook-delivery-schema.js';
export * from './webhook-delivery-definition.js';
export * from './webhook-delivery-api.js';
export * from './webhook-outbox.js';
export { webhookQueue } from './webhook-queue.js';
