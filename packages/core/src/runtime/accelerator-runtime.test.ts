import { describe, expect, it } from 'vitest';
import { describeRuntimeContract } from '../testing/runtime-contract.js';
import { createAcceleratorRuntime, findRuntime } from './accelerator-runtime.js';
import { simulatedProvisioner } from './simulated-provisioner.js';
import type { AcceleratorRuntime } from '../ports/accelerator-runtime.js';

/** A third-party vendor built only from the public runtime API: proves the contract suite is reusable. */
function acmeRuntime(): AcceleratorRuntime {
  return createAcceleratorRuntime({
    id: 'acme',
    vendor: 'acme',
    acceleratorTypes: [
      { type: 'ACME_Z1_64GB', vendor: 'acme', memoryGiB: 64, supportedPrecisions: ['BF16', 'FP8'], generation: 1, generationName: 'Z1', maxAcceleratorsPerReplica: 4 },
    ],
    launch: { image: 'acme/engine:1', deviceResource: 'acme.example/npu', visibleDevicesEnv: 'ACME_VISIBLE', acceleratorTypeLabel: 'acme.example/type' },
    provisioner: simulatedProvisioner({ delays: { schedulingMs: 1, downloadingMs: 1, initializingMs: 1 } }),
  });
}

describeRuntimeContract('acme (third-party example)', acmeRuntime);

describe('createAcceleratorRuntime', () => {
  it('refuses inconsistent catalogues', () => {
    const base = {
      id: 'bad',
      vendor: 'bad',
      launch: { image: 'i', deviceResource: 'r', visibleDevicesEnv: 'E', acceleratorTypeLabel: 'l' },
      provisioner: simulatedProvisioner(),
    };
    const t = { type: 'BAD_1', vendor: 'bad', memoryGiB: 1, supportedPrecisions: ['BF16'] as const, generation: 1, generationName: 'g', maxAcceleratorsPerReplica: 1 };
    expect(() => createAcceleratorRuntime({ ...base, acceleratorTypes: [] })).toThrow(/no accelerator types/);
    expect(() => createAcceleratorRuntime({ ...base, acceleratorTypes: [t, t] })).toThrow(/twice/);
    expect(() => createAcceleratorRuntime({ ...base, acceleratorTypes: [{ ...t, vendor: 'other' }] })).toThrow(/vendor/);
  });

  it('finds the runtime serving a type', () => {
    const acme = acmeRuntime();
    expect(findRuntime([acme], 'ACME_Z1_64GB')).toBe(acme);
    expect(() => findRuntime([acme], 'GPUX_H100_80GB')).toThrow(/GPUX_H100_80GB is not served by any installed runtime plugin \(served: ACME_Z1_64GB\)/);
    expect(() => findRuntime([], 'GPUX_H100_80GB')).toThrow(/no runtime plugin is installed/);
  });
});
