import Fastify from 'fastify';
import { Agent } from 'undici';

/**
 * Benchmark target (b): the floor for any Node proxy. Fastify parses the JSON body, undici forwards it
 * to the engine over a keep-alive pool, and the engine's answer is piped back as it arrives. No auth,
 * no model resolution, no validation, no rewriting.
 */
const engineUrl = process.argv[2];
if (!engineUrl) throw new Error('usage: bare-proxy-server.ts <engine url>');
const origin = new URL(engineUrl).origin;
const agent = new Agent({ connections: 128, keepAliveTimeout: 4_000 });
const app = Fastify({ logger: false });
for (const path of ['/v1/chat/completions', '/v1/completions']) {
  app.post(path, async (request, reply) => {
    const upstream = await agent.request({
      origin, path, method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request.body),
    });
    const type = upstream.headers['content-type'];
    return reply.code(upstream.statusCode).header('content-type', typeof type === 'string' ? type : 'application/json').send(upstream.body);
  });
}
const url = await app.listen({ host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ url }));
process.on('SIGTERM', () => void app.close().then(() => agent.close()).then(() => process.exit(0)));
