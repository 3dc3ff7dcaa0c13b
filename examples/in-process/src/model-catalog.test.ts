import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code, type Gateway } from '@berth/core';
import { buildGateway } from './gateway.js';
import { ModelCatalog } from './model-catalog.js';

let gateway: Gateway;
let catalog: ModelCatalog;

beforeAll(async () => {
  gateway = buildGateway('my-account', 'error');
  await gateway.start();
  catalog = new ModelCatalog(gateway, 'my-account');
});
afterAll(async () => {
  await gateway?.stop();
});

describe('Berth\'s services in process, no HTTP', () => {
  it('registers and deploys a model, and lists it through an AIP-160 filter', async () => {
    const system = catalog.context();
    const model = await catalog.register(system, 'llama-3-8b', 8_000_000_000n);
    expect(model).toMatchObject({ name: 'accounts/my-account/models/llama-3-8b', kind: 'HUB_BASE_MODEL' });
    const deployment = await catalog.deploy(system, 'llama-3-8b', 'chat', 'GPUX_H100_80GB');
    expect(deployment).toMatchObject({ name: 'accounts/my-account/deployments/chat', state: 'READY', acceleratorType: 'GPUX_H100_80GB' });
    expect(await catalog.readyOn(system, 'GPUX_H100_80GB')).toEqual(['accounts/my-account/deployments/chat']);
    expect(await catalog.readyOn(system, 'GPUX_A100_80GB')).toEqual([]);
  });

  it('validates input as the REST API does, with the same error codes', async () => {
    await expect(catalog.register(catalog.context(), 'Not A Valid Id', 1n)).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    await expect(catalog.register(catalog.context(), 'llama-3-8b', 1n)).rejects.toMatchObject({ code: Code.ALREADY_EXISTS });
  });

  it('authorizes a call made for a user exactly as an HTTP request of that user', async () => {
    await expect(catalog.register(catalog.context({ userId: 'ivy', role: 'inference-user' }), 'mistral-7b', 7_000_000_000n))
      .rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    expect(await catalog.readyOn(catalog.context({ userId: 'ivy', role: 'inference-user' }), 'GPUX_H100_80GB')).toHaveLength(1);
  });
});
