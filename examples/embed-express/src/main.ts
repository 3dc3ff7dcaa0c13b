import type { Server } from 'node:http';
import { createApp } from './app.js';
import { buildGateway, readSettings } from './gateway.js';

/**
 * `npm start`: your Express app on $HOST:$PORT (default 127.0.0.1:8080) with a Berth gateway under /berth.
 */
const settings = readSettings();
const gateway = buildGateway(settings);
await gateway.start();
const { app, close } = await createApp(gateway);
const server = await new Promise<Server>((resolve, reject) => {
  const listening = app.listen(settings.port, settings.host, (error?: Error) => (error ? reject(error) : resolve(listening)));
});
const url = `http://${settings.host}:${settings.port === 0 ? (server.address() as { port: number }).port : settings.port}`;
gateway.logger.info({ url, berth: `${url}/berth`, docs: `${url}/berth/docs` }, 'Express app listening with Berth under /berth');

const shutdown = async (): Promise<void> => {
  await new Promise((resolve) => server.close(resolve));
  await close();
  await gateway.stop();
  process.exit(0);
};
process.once('SIGINT', () => void shutdown());
process.once('SIGTERM', () => void shutdown());
