import { createGateway, queueWorkers, type Gateway, type GatewayLogger, type GatewayPlugin } from '@berth/core';
import { jsonLogger } from '@berth/plugin-transport-fastify';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { postgresStorage } from '@berth/plugin-storage-postgres';
import type { PostgresGatewaySettings } from './postgres-settings.js';

export interface BuildPostgresGatewayOptions {
  /** More plugins (runtimes, webhooks, queue handlers), registered after storage and auth. */
  readonly plugins?: readonly GatewayPlugin[];
  readonly logger?: GatewayLogger;
}

/**
 * A gateway for running several instances on one PostgreSQL database: PostgreSQL storage, API keys,
 * the host's plugins, and queue workers (last, so they stop first and finish their jobs while
 * storage is still open). Instances share everything through the database; none holds state another
 * needs.
 */
export function buildPostgresGateway(settings: PostgresGatewaySettings, options: BuildPostgresGatewayOptions = {}): Gateway {
  return createGateway({
    plugins: [
      postgresStorage({ connectionString: settings.databaseUrl, schema: settings.schema, maxConnections: settings.maxConnections }),
      apiKeyAuth(),
      ...(options.plugins ?? []),
      queueWorkers({
        concurrency: settings.workerConcurrency,
        pollIntervalMs: settings.workerPollIntervalMs,
        ...(settings.workerId === undefined ? {} : { workerId: settings.workerId }),
      }),
    ],
    config: {
      bootstrapAccountId: settings.accountId,
      ...(settings.apiKey ? { bootstrapApiKey: settings.apiKey } : {}),
      allowLoopbackUrls: settings.allowLoopbackUrls,
      allowPrivateUrls: settings.allowPrivateUrls,
      ...settings.images,
      maxDatasetFileBytes: settings.maxDatasetFileBytes,
      maxModelFileBytes: settings.maxModelFileBytes,
      maxModelBytes: settings.maxModelBytes,
    },
    logger: options.logger ?? jsonLogger({ level: settings.logLevel }),
  });
}
