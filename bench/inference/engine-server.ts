import { startReferenceEngine } from '@berth/core';

/**
 * Benchmark target (a): the reference engine itself, answering as fast as it can (no token delay), or
 * after ENGINE_TTFT_MS before each answer (bench/batch: a model that takes time, as real ones do).
 */
const ttft = Number(process.env.ENGINE_TTFT_MS ?? 0);
const engine = await startReferenceEngine({
  host: '127.0.0.1', port: 0, modelIds: ['reference-model'], acceptUnknownModels: true, speed: ttft > 0 ? { timeToFirstTokenMs: ttft } : {},
});
console.log(JSON.stringify({ url: engine.url }));
process.on('SIGTERM', () => void engine.close().then(() => process.exit(0)));
