import { afterAll, beforeAll, describe, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';
import { postgresTestSchema, type PostgresTestSchema } from './postgres.js';
import { evaluatorGatewayPlugins, runEvaluatorScenario } from './evaluators-scenario.js';

/** The evaluator scenario of the memory e2e on PostgreSQL (DATABASE_URL, or an embedded PGlite). */
let h: Harness | undefined;
let schema: PostgresTestSchema | undefined;

beforeAll(async () => {
  schema = await postgresTestSchema('evaluators');
  h = await startHarness({ plugins: evaluatorGatewayPlugins(schema.plugin(), 250) });
}, 60_000);
afterAll(async () => {
  await h?.close();
  await schema?.cleanup();
});

describe('evaluators over HTTP (PostgreSQL)', () => {
  it('create, build, get, list, update, delete; the runner scores with what the API answers', async () => {
    await runEvaluatorScenario(h!, 'pg');
  }, 180_000);
});
