import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStorage } from '../testing/index.js';
import { testRuntime } from '../testing/test-runtime.js';
import type { Gateway } from '../kernel/gateway.js';
import { createGateway } from '../services/create-gateway.js';
import { definePlugin } from '../kernel/plugin.js';
import { storageToken } from '../kernel/tokens.js';
import { staticTokenAuth } from '../testing/test-gateway.js';
import { coreServicesToken } from '../services/tokens.js';
import { servingOptions } from '../services/serving-options-plugin.js';
import { systemContext } from '../contracts/request-context.js';

/** Two gateway instances on one store (in one process): one leader reconciles for both. */
const shared = new MemoryStorage();
const gateways: Gateway[] = [];

function instance(): Gateway {
  const gateway = createGateway({
    plugins: [
      definePlugin({ id: 'storage-shared', register: (binder) => binder.bindValue(storageToken, shared) }),
      staticTokenAuth({}),
      testRuntime({ simulated: { delays: { schedulingMs: 5, downloadingMs: 5, initializingMs: 5 } } }),
      servingOptions({ pollIntervalMs: 50, leaderLeaseMs: 300 }),
    ],
    config: { bootstrapAccountId: 'multi', pageTokenSecret: 'multi-secret' },
  });
  gateways.push(gateway);
  return gateway;
}

afterEach(async () => {
  for (const g of gateways.splice(0).reverse()) if (g.state === 'running') await g.stop();
});

async function waitReady(gateway: Gateway, name: string): Promise<void> {
  const ctx = systemContext('test');
  const until = Date.now() + 10_000;
  while ((await gateway.resolve(coreServicesToken).deployments.get(ctx, name)).state !== 'READY') {
    if (Date.now() > until) throw new Error(`${name} did not become READY`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('serving with several instances on one store', () => {
  it('a deployment created through a follower is reconciled by the leader; a new leader takes over', async () => {
    const a = instance();
    await a.start();
    const b = instance();
    await b.start();
    const ctx = systemContext('test');
    const viaB = b.resolve(coreServicesToken);
    await viaB.models.create(ctx, 'multi', { kind: 'HUB_BASE_MODEL', baseModelDetails: { parameterCount: '8000000000', checkpointFormat: 'HUB', hubFiles: ['w'] } }, 'm');
    await viaB.deployments.create(ctx, 'multi', { baseModel: 'accounts/multi/models/m', acceleratorType: 'GPUX_H100_80GB' }, { deploymentId: 'first' });
    await waitReady(b, 'accounts/multi/deployments/first');

    await a.stop();
    await viaB.deployments.create(ctx, 'multi', { baseModel: 'accounts/multi/models/m', acceleratorType: 'GPUX_H100_80GB' }, { deploymentId: 'second' });
    await waitReady(b, 'accounts/multi/deployments/second');
    const listed = await viaB.deployments.list(ctx, 'multi', {});
    expect(listed.items.map((d) => [d.name, d.state])).toEqual([
      ['accounts/multi/deployments/first', 'READY'],
      ['accounts/multi/deployments/second', 'READY'],
    ]);
  });
});
