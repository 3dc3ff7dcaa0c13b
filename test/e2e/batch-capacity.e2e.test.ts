import { afterAll, beforeAll, describe, it } from 'vitest';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { startHarness, type Harness } from './harness.js';
import { batchGatewayPlugins } from './batch-inference-scenario.js';
import { precisionScenario, scaleFromZeroScenario, temporaryDeploymentScenario } from './batch-capacity-scenario.js';

/** Batch jobs getting capacity over HTTP (memory), against simulated GPUX replicas running reference engines. */
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ plugins: batchGatewayPlugins(memoryStorage()) });
}, 60_000);
afterAll(async () => h?.close());

describe('batch job capacity over HTTP (memory)', () => {
  it('scales a deployment at zero replicas from zero while the job is PENDING, then runs every row on it', async () => {
    await scaleFromZeroScenario(h, 'mem');
  }, 60_000);

  it('two jobs of a model without deployments share one temporary deployment, deleted when both ended; repeated custom_ids fail', async () => {
    await temporaryDeploymentScenario(h, 'mem');
  }, 60_000);

  it('a requested precision no deployment serves gets a temporary deployment at it; a defaulted one uses the model\'s deployment', async () => {
    await precisionScenario(h, 'mem');
  }, 60_000);
});
