import { describe, expect, it, vi } from 'vitest';
import { acceleratorRuntimesToken, simulatedProvisioner } from '../index.js';
import { describeRuntimeContract } from './runtime-contract.js';
import { memoryStorage } from '../storage-memory/index.js';
import { createTestGateway } from './test-gateway.js';
import { createTestRuntime, testAcceleratorTypes, testRuntime } from './test-runtime.js';

const fast = { schedulingMs: 1, downloadingMs: 1, initializingMs: 1 };

describeRuntimeContract('test runtime', () => createTestRuntime({ simulated: { delays: fast } }));

describe('test runtime', () => {
  it('declares its catalogue under its own vendor', () => {
    const runtime = createTestRuntime();
    expect(runtime.vendor).toBe('test');
    expect(runtime.acceleratorTypes.map((t) => t.type)).toEqual(testAcceleratorTypes.map((t) => t.type));
  });
});

describe('testRuntime plugin', () => {
  it('closes the provisioner it created when the gateway stops', async () => {
    const tg = await createTestGateway({ plugins: [memoryStorage(), testRuntime({ simulated: { delays: fast } })] });
    const [runtime] = tg.gateway.resolveAll(acceleratorRuntimesToken);
    if (runtime === undefined) throw new Error('no runtime contributed');
    expect(runtime.vendor).toBe('test');
    const close = vi.spyOn(runtime.provisioner, 'close');
    await tg.stop();
    expect(close).toHaveBeenCalledTimes(1);
  });

  it('leaves a provisioner it was given to its owner', async () => {
    const given = simulatedProvisioner({ delays: fast });
    const close = vi.spyOn(given, 'close');
    const tg = await createTestGateway({ plugins: [memoryStorage(), testRuntime({ provisioner: given })] });
    expect(tg.gateway.resolveAll(acceleratorRuntimesToken).map((r) => r.provisioner)).toEqual([given]);
    await tg.stop();
    expect(close).not.toHaveBeenCalled();
    await given.close();
  });
});
