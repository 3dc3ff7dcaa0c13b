import { acceleratorRuntimesToken, type GatewayPlugin } from '@berth/core';
import { serveGateway, type RunningServer } from '@berth/plugin-transport-fastify';
import { buildPostgresGateway } from './build-postgres-gateway.js';
import { readPostgresSettings, redactDatabaseUrl } from './postgres-settings.js';
import { startTracing } from './tracing.js';

/**
 * Reads the environment, starts the gateway and its HTTP server, and stops both on SIGINT/SIGTERM
 * (the server first, then the gateway, whose queue workers finish running jobs).
 * @throws SettingsError on a missing DATABASE_URL; whatever start throws (database unreachable, …).
 */
export async function runPostgresGateway(plugins: readonly GatewayPlugin[] = []): Promise<RunningServer> {
  const settings = readPostgresSettings();
  // Before the gateway is built: it checks once whether an OpenTelemetry SDK is registered.
  const stopTracing = await startTracing();
  const gateway = buildPostgresGateway(settings, { plugins });
  await gateway.start();
  const server = await serveGateway(gateway, { host: settings.host, port: settings.port });
  // Which runtimes serve deployments (none: deployments stay CREATING and inference answers 503, as core logs).
  const runtimes = gateway.resolve(acceleratorRuntimesToken).map((runtime) => `${runtime.id} (${runtime.provisioner.kind})`);
  gateway.logger.info(
    {
      url: server.url, account: settings.accountId, database: redactDatabaseUrl(settings.databaseUrl), schema: settings.schema, docs: `${server.url}/docs`,
      runtimes,
    },
    'Berth gateway listening (PostgreSQL)',
  );
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    gateway.logger.info({ signal }, 'shutting down');
    try {
      await server.close();
      await gateway.stop();
      await stopTracing?.();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  return server;
}
