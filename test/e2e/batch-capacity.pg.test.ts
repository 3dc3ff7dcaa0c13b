import { afterAll, beforeAll, describe, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';
import { postgresTestSchema, type PostgresTestSchema } from './postgres.js';
import { batchGatewayPlugins } from './batch-inference-scenario.js';
import { precisionScenario, scaleFromZeroScenario, temporaryDeploymentScenario } from './batch-capacity-scenario.js';

/** The batch capacity scenarios of the memory e2e on PostgreSQL (DATABASE_URL, or one embedded PGlite). */
let h: Harness | undefined;
let schema: PostgresTestSchema | undefined;

beforeAll(async () => {
  schema = await postgresTestSchema('batchcap');
  h = await startHarness({ plugins: batchGatewayPlugins(schema.plugin()) });
}, 60_000);
afterAll(async () => {
  await h?.close();
  await schema?.cleanup();
});

describe('batch job capacity over HTTP (PostgreSQL)', () => {
  it('scales a deployment at zero replicas from zero while the job is PENDING, then runs every row on it', async () => {
    await scaleFromZeroScenario(h!, 'pg');
  }, 90_000);

  it('two jobs of a model without deployments share one temporary deployment, deleted when both ended; repeated custom_ids fail', async () => {
    await temporaryDeploymentScenario(h!, 'pg');
  }, 90_000);

  it('a requested precision no deployment serves gets a temporary deployment at it; a defaulted one uses the model\'s deployment', async () => {
    await precisionScenario(h!, 'pg');
  }, 90_000);
});
