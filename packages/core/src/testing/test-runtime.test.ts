import { describe, expect, it } from 'vitest';
import { describeRuntimeContract } from './runtime-contract.js';
import { createTestRuntime, testAcceleratorTypes } from './test-runtime.js';

const fast = { schedulingMs: 1, downloadingMs: 1, initializingMs: 1 };

describeRuntimeContract('test runtime', () => createTestRuntime({ provisioner: { kind: 'simulated', delays: fast } }));

describe('test runtime', () => {
  it('declares its catalogue under its own vendor', () => {
    const runtime = createTestRuntime();
    expect(runtime.vendor).toBe('test');
    expect(runtime.acceleratorTypes.map((t) => t.type)).toEqual(testAcceleratorTypes.map((t) => t.type));
  });
});
