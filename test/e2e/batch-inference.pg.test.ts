import { afterAll, beforeAll, describe, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';
import { postgresTestSchema, type PostgresTestSchema } from './postgres.js';
import { batchGatewayPlugins, deployReady, runBatchScenario } from './batch-inference-scenario.js';

/** The batch inference scenario of the memory e2e on PostgreSQL (DATABASE_URL, or one embedded PGlite). */
let h: Harness | undefined;
let schema: PostgresTestSchema | undefined;

beforeAll(async () => {
  schema = await postgresTestSchema('batch');
  h = await startHarness({
    plugins: batchGatewayPlugins(schema.plugin()),
  });
  await deployReady(h, 'batchy');
}, 60_000);
afterAll(async () => {
  await h?.close();
  await schema?.cleanup();
});

describe('batch inference jobs over HTTP (PostgreSQL)', () => {
  it('uploads a dataset, runs a job to COMPLETED, downloads results and errors: every row once, counters equal the files', async () => {
    await runBatchScenario(h!, 'batchy', 'pg');
  }, 90_000);
});
