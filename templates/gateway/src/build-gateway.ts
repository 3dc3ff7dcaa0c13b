import { consoleLogger, createGateway, type Gateway, type GatewayPlugin } from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import type { TemplateSettings } from './gateway-config.js';

/**
 * The embedded default: memory storage and API keys. `storage` lets a host (or the PostgreSQL
 * template) swap the storage plugin without touching the rest.
 */
export function buildGateway(settings: TemplateSettings, storage: GatewayPlugin = memoryStorage()): Gateway {
  return createGateway({
    plugins: [storage, apiKeyAuth()],
    config: {
      bootstrapAccountId: settings.accountId,
      ...(settings.apiKey ? { bootstrapApiKey: settings.apiKey } : {}),
    },
    logger: consoleLogger(settings.logLevel),
  });
}
