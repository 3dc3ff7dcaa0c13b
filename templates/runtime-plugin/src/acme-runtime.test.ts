import { describe, expect, it } from 'vitest';
import { coreServicesToken, createGateway, servingOptions, systemContext } from '@berth/core';
import { describeRuntimeContract } from '@berth/core/testing';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { acmeRuntime, createAcmeRuntime } from './index.js';

// The same suite every built-in runtime passes, unchanged.
describeRuntimeContract('acme (template)', () => createAcmeRuntime({ provisioner: { kind: 'simulated', delays: { schedulingMs: 5, downloadingMs: 5, initializingMs: 5 } } }));

describe('acme in a gateway', () => {
  it('serves deployments on its own accelerator types, and the gateway refuses types no runtime serves', async () => {
    const gateway = createGateway({
      plugins: [memoryStorage(), apiKeyAuth(), acmeRuntime({ provisioner: { kind: 'simulated', delays: { schedulingMs: 5, downloadingMs: 5, initializingMs: 5 } } }), servingOptions({ pollIntervalMs: 50 })],
      config: { bootstrapAccountId: 'acme-co', bootstrapApiKey: 'acme-template-key-123' },
    });
    await gateway.start();
    try {
      const { models, deployments } = gateway.resolve(coreServicesToken);
      const ctx = systemContext('test');
      await models.create(ctx, 'acme-co', { kind: 'HUB_BASE_MODEL', baseModelDetails: { parameterCount: '8000000000', checkpointFormat: 'HUB', hubFiles: ['w'] } }, 'm');
      const created = await deployments.create(ctx, 'acme-co', { baseModel: 'accounts/acme-co/models/m', acceleratorType: 'ACME_Z1_64GB' }, { deploymentId: 'd' });
      expect(created.acceleratorCount).toBeGreaterThanOrEqual(1);
      const until = Date.now() + 10_000;
      while ((await deployments.get(ctx, 'accounts/acme-co/deployments/d')).state !== 'READY') {
        if (Date.now() > until) throw new Error('deployment did not become READY');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await expect(deployments.create(ctx, 'acme-co', { baseModel: 'accounts/acme-co/models/m', acceleratorType: 'GPUX_H100_80GB' }, { deploymentId: 'x' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(deployments.create(ctx, 'acme-co', { baseModel: 'accounts/acme-co/models/m', acceleratorType: 'ACME_Z1_64GB', precision: 'FP4' }, { deploymentId: 'y' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    } finally {
      await gateway.stop();
    }
  });
});
