import { createAppServer } from './app.js';
import { buildGateway, readSettings } from './gateway.js';

/**
 * `npm start`: your node:http server on $HOST:$PORT (default 127.0.0.1:8080) with a Berth gateway under /berth.
 */
const settings = readSettings();
const gateway = buildGateway(settings);
await gateway.start();
const { server, close } = await createAppServer(gateway);
await new Promise<void>((resolve) => server.listen(settings.port, settings.host, resolve));
const url = `http://${settings.host}:${(server.address() as { port: number }).port}`;
gateway.logger.info({ url, berth: `${url}/berth`, docs: `${url}/berth/docs` }, 'node:http server listening with Berth under /berth');

const shutdown = async (): Promise<void> => {
  await new Promise((resolve) => server.close(resolve));
  await close();
  await gateway.stop();
  process.exit(0);
};
process.once('SIGINT', () => void shutdown());
process.once('SIGTERM', () => void shutdown());
