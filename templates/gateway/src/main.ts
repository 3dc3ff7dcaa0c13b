import { serveGateway } from '@berth/plugin-transport-fastify';
import { buildGateway } from './build-gateway.js';
import { readSettings } from './gateway-config.js';
import { describeStorage } from './select-storage.js';
import { startTracing } from './tracing.js';

/**
 * `npm start`: a Berth gateway listening on $HOST:$PORT (default 127.0.0.1:8080), on PostgreSQL when
 * DATABASE_URL is set, else on memory storage.
 */
async function main(): Promise<void> {
  const settings = readSettings();
  // Before the gateway is built: it checks once whether an OpenTelemetry SDK is registered.
  const stopTracing = await startTracing();
  const gateway = buildGateway(settings);
  await gateway.start();
  const server = await serveGateway(gateway, { host: settings.host, port: settings.port });
  gateway.logger.info({ url: server.url, account: settings.accountId, storage: describeStorage(settings), docs: `${server.url}/docs` }, 'Berth gateway listening');
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    gateway.logger.info({ signal }, 'shutting down');
    await server.close();
    await gateway.stop();
    await stopTracing?.();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`Berth gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
