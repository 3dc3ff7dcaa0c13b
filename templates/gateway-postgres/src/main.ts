import { webhooks } from '@berth/plugin-webhooks';
import { metrics, metricsOptionsFromEnv } from '@berth/plugin-metrics';
import { readRuntimeNames, simulatedRuntimes } from './runtime-selection.js';
import { runPostgresGateway } from './serve.js';

/**
 * `npm start -w @berth/template-gateway-postgres`: a Berth gateway on PostgreSQL (DATABASE_URL required), with
 * the runtime plugins `BERTH_RUNTIMES` names (default gpux and gpuy, simulated), webhook delivery and
 * Prometheus metrics (`BERTH_METRICS*`, docs/operations.md).
 */
async function main(): Promise<void> {
  const metricsOptions = metricsOptionsFromEnv();
  await runPostgresGateway([...simulatedRuntimes(readRuntimeNames()), webhooks(), ...(metricsOptions ? [metrics(metricsOptions)] : [])]);
}

main().catch((error: unknown) => {
  process.stderr.write(`Berth gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
