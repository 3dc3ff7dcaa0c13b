import { consoleLogger, createGateway, type Gateway, type GatewayPlugin } from '@berth/core';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import type { TemplateSettings } from './gateway-config.js';
import { selectStorage } from './select-storage.js';

/**
 * Storage (memory, or PostgreSQL when `DATABASE_URL` is set: see select-storage.ts) and API keys.
 * `storage` lets a host swap the storage plugin without touching the rest.
 */
export function buildGateway(settings: TemplateSettings, storage: GatewayPlugin = selectStorage(settings)): Gateway {
  return createGateway({
    plugins: [storage, apiKeyAuth()],
    config: {
      bootstrapAccountId: settings.accountId,
      ...(settings.apiKey ? { bootstrapApiKey: settings.apiKey } : {}),
    },
    logger: consoleLogger(settings.logLevel),
  });
}
