import { createGateway, queueWorkers, type Gateway, type GatewayPlugin } from '@berth/core';
import { jsonLogger } from '@berth/plugin-transport-fastify';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { gpuxRuntime } from '@berth/plugin-runtime-gpux';
import { gpuyRuntime } from '@berth/plugin-runtime-gpuy';
import { mcpTools } from '@berth/plugin-tools-mcp';
import { webhooks } from '@berth/plugin-webhooks';
import { metrics, metricsOptionsFromEnv } from '@berth/plugin-metrics';
import type { TemplateSettings } from './gateway-config.js';
import { selectStorage } from './select-storage.js';

/**
 * Storage (memory, or PostgreSQL when `DATABASE_URL` is set: see select-storage.ts), API keys, and both
 * accelerator runtimes on their simulated provisioners: deployments get replicas that are reference-engine
 * servers on loopback ports, so the whole lifecycle and inference work on a laptop without accelerators; images
 * come from the reference image engine the simulated pool serves (drawn in process with sharp).
 * Webhooks are delivered by the queue workers (signed, retried, visible at `/v1/accounts/{a}/webhookDeliveries`).
 * MCP tools run by the gateway in the Responses API (`mcpTools()`: `tools` of type `mcp` and `sse`, whose
 * servers are called through the guarded egress client, loopback only with BERTH_ALLOW_LOOPBACK_URLS).
 * Prometheus metrics at `/metrics` unless `BERTH_METRICS=false` (`BERTH_METRICS_TOKEN`, `BERTH_METRICS_PORT`:
 * docs/operations.md). `storage` lets a host swap the storage plugin without touching the rest.
 */
export function buildGateway(settings: TemplateSettings, storage: GatewayPlugin = selectStorage(settings)): Gateway {
  const metricsOptions = metricsOptionsFromEnv();
  return createGateway({
    // queueWorkers right after storage: it stops before storage closes (plugins stop in reverse order).
    plugins: [
      storage, queueWorkers(), apiKeyAuth(), gpuxRuntime(), gpuyRuntime(), webhooks(), mcpTools(),
      ...(metricsOptions ? [metrics(metricsOptions)] : []),
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
    // pino JSON lines with request and trace ids, credentials redacted (docs/operations.md).
    logger: jsonLogger({ level: settings.logLevel }),
  });
}
