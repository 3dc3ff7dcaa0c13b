import Fastify from 'fastify';

/**
 * Baseline: bare Fastify answering the same JSON bodies the gateway answers, with no auth, storage,
 * validation or masks. The JSON is passed on the command line by the benchmark.
 */
const model: unknown = JSON.parse(process.argv[2] ?? '{}');
const busyModel: unknown = JSON.parse(process.argv[3] ?? '{}');
const list: unknown = JSON.parse(process.argv[4] ?? '{}');
const app = Fastify({ logger: false });
app.get<{ Params: { model: string } }>('/v1/accounts/:account/models/:model', async (request) => (request.params.model === 'busy-model' ? busyModel : model));
app.get('/v1/accounts/:account/deployments', async () => list);
const url = await app.listen({ host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ url }));
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
