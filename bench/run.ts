/**
 * `npm run bench [name]`: runs one benchmark, or all. Each prints a table and compares against a
 * baseline measured in the same run.
 */
const benchmarks: Record<string, () => Promise<unknown>> = {
  'control-plane': async () => (await import('./control-plane/index.js')).runControlPlaneBenchmark(),
  storage: async () => (await import('./storage/index.js')).runStorageBenchmark(),
  inference: async () => (await import('./inference/index.js')).runInferenceBenchmark(),
  responses: async () => (await import('./responses/index.js')).runResponsesBenchmark(),
  images: async () => (await import('./images/index.js')).runImagesBenchmark(),
  'hostile-bodies': async () => (await import('./hostile-bodies/index.js')).runHostileBodiesBenchmark(),
  batch: async () => (await import('./batch/index.js')).runBatchBenchmark(),
  startup: async () => (await import('./startup/index.js')).runStartupBenchmark(),
  rft: async () => (await import('./rft/index.js')).runRftBenchmark(),
  'model-files': async () => (await import('./model-files/index.js')).runModelFilesBenchmark(),
  observability: async () => (await import('./observability/index.js')).runObservabilityBenchmark(),
};
const requested = process.argv[2];
const names = requested ? [requested] : Object.keys(benchmarks);
for (const name of names) {
  const run = benchmarks[name];
  if (!run) {
    console.error(`unknown benchmark "${name}"; choose one of: ${Object.keys(benchmarks).join(', ')}`);
    process.exit(2);
  }
  await run();
}
