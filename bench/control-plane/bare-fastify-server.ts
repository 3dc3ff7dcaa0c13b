import Fastify from 'fastify';

/**
 * Baseline: bare Fastify answering the same JSON bodies the gateway answers, with no auth, storage,
 * validation or masks. The JSON is passed on the command line by the benchmark.
 */
const [modelJson, listJson] = [process.argv[2] ?? '{}', process.argv[3] ?? '{}'];
const model: unknown = JSON.parse(modelJson);
const list: unknown = JSON.parse(listJson);
const app = Fastify({ logger: false });
app.get('/v1/accounts/:account/models/:model', async () => model);
app.get('/v1/accounts/:account/deployments', async () => list);
const url = await app.listen({ host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ url }));
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
