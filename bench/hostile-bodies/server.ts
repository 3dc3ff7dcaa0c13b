import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createGateway } from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { createHttpServer } from '@berth/plugin-transport-fastify';

/**
 * Benchmark target: the gateway (memory storage, API keys) with an event-loop delay monitor. `GET /__eld`
 * answers the largest delay and the CPU time used since the previous call (ms), and resets both.
 */
const apiKey = 'bench-admin-key-000000000000';
const gateway = createGateway({ plugins: [memoryStorage(), apiKeyAuth()], config: { bootstrapAccountId: 'bench', bootstrapApiKey: apiKey } });
await gateway.start();
const app = createHttpServer({ gateway });
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
let cpu = process.cpuUsage();
app.get('/__eld', async () => {
  const used = process.cpuUsage(cpu);
  const answer = { maxMs: delay.max / 1e6, cpuMs: (used.user + used.system) / 1000 };
  delay.reset();
  cpu = process.cpuUsage();
  return answer;
});
const url = await app.listen({ host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ url, apiKey }));
process.on('SIGTERM', () => void app.close().then(() => gateway.stop()).then(() => process.exit(0)));
