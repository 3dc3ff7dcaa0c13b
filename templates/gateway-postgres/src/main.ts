import { webhooks } from '@berth/plugin-webhooks';
import { metrics, metricsOptionsFromEnv } from '@berth/plugin-metrics';
import { runPostgresGateway } from './serve.js';

const metricsOptions = metricsOptionsFromEnv();

/**
 * `npm start -w @berth/template-gateway-postgres`: a Berth gateway on PostgreSQL (DATABASE_URL required), with webhook
 * delivery and Prometheus metrics (`BERTH_METRICS*`, docs/operations.md).
 */
runPostgresGateway([webhooks(), ...(metricsOptions ? [metrics(metricsOptions)] : [])]).catch((error: unknown) => {
  process.stderr.write(`Berth gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
