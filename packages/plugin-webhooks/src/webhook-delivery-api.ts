import { crudService, defineResourceApi, defineResourceModule, gatewaySecretsToken, resourceEnvironmentToken, standardOperations, createToken } from '@berth/core';
import { webhookDeliveryDefinition } from './webhook-delivery-definition.js';
import { webhookDeliverySchema } from './webhook-delivery-schema.js';

/** Get and list of an account's webhook deliveries (attempts included). Permissions `webhookDeliveries.get`/`.list`. */
export class WebhookDeliveryService extends crudService(webhookDeliveryDefinition, ['get', 'list']) {}

export const webhookDeliveryServiceToken = createToken<WebhookDeliveryService>('WebhookDeliveryService', { providedBy: 'webhooks()' });

/** `GET /v1/accounts/{account_id}/webhookDeliveries` (filter, orderBy, pages, readMask) and `…/{webhook_delivery_id}`. */
export const webhookDeliveryApi = defineResourceApi<WebhookDeliveryService>({
  definition: { collection: webhookDeliveryDefinition.collection, singular: webhookDeliveryDefinition.singular, schema: webhookDeliverySchema },
  tag: 'Webhook deliveries',
  operations: (deliveries) => standardOperations(deliveries),
});

export const webhookDeliveryModule = defineResourceModule({
  api: webhookDeliveryApi,
  service: { token: webhookDeliveryServiceToken, deps: [resourceEnvironmentToken, gatewaySecretsToken], factory: (env, secrets) => new WebhookDeliveryService(env, secrets) },
});
