/**
 * `src/main.ts` of the embed-fastify project: the gateway template's `buildGateway` mounted with the `berth`
 * Fastify plugin under `/berth` in an app that keeps its own routes (`/` and `/healthz` here).
 */
export const embedFastifyMain = `import { fastify } from 'fastify';
import { berth } from '@berth/plugin-transport-fastify';
import { buildGateway } from './build-gateway.js';
import { readSettings } from './gateway-config.js';

/**
 * \`npm start\`: your own Fastify app on $HOST:$PORT (default 127.0.0.1:8080) with a Berth gateway mounted under
 * /berth (its API at /berth/v1/..., its reference at /berth/docs). The app's routes, hooks and error handler
 * stay its own; Berth's parsers, hooks and errors stay inside its scope.
 */
const settings = readSettings();
const gateway = buildGateway(settings);
await gateway.start();

const app = fastify();
app.get('/', async () => ({ hello: 'from your app', berth: '/berth/docs' }));
app.get('/healthz', async () => ({ status: 'ok' }));
await app.register(berth, { gateway, prefix: '/berth' });
const url = await app.listen({ host: settings.host, port: settings.port });
gateway.logger.info({ url, berth: \`\${url}/berth\`, docs: \`\${url}/berth/docs\` }, 'app listening with Berth under /berth');

const shutdown = async (): Promise<void> => {
  await app.close();
  await gateway.stop();
  process.exit(0);
};
process.once('SIGINT', () => void shutdown());
process.once('SIGTERM', () => void shutdown());
`;
