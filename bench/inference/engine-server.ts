import { startReferenceEngine } from '@berth/core';

/** Benchmark target (a): the reference engine itself, answering as fast as it can (no token delay). */
const engine = await startReferenceEngine({ host: '127.0.0.1', port: 0, modelIds: ['reference-model'], acceptUnknownModels: true, speed: {} });
console.log(JSON.stringify({ url: engine.url }));
process.on('SIGTERM', () => void engine.close().then(() => process.exit(0)));
