import { defineVendorRuntime, fp8Precisions, type AcceleratorTypeInfo, type LaunchProfile, type VendorRuntimeOptions } from '../index.js';

const accelerator = (type: string, memoryGiB: number, generation: number, supportedPrecisions: AcceleratorTypeInfo['supportedPrecisions']): AcceleratorTypeInfo =>
  ({ type, vendor: 'test', memoryGiB, generation, generationName: `generation ${generation}`, supportedPrecisions, maxAcceleratorsPerReplica: 8 });

const withFp8: AcceleratorTypeInfo['supportedPrecisions'] = ['FP16', 'BF16', ...fp8Precisions, 'NF4'];

/**
 * The catalogue of the test runtime: three of the spec's accelerator types, with the memory their names
 * state. `GPUX_A100_80GB` (generation 1) serves 16-bit precisions and NF4 only; the generation-3 types add
 * FP8. Other spec types (e.g. `GPUY_MI300X_192GB`) are not served, for tests of an unknown type.
 */
export const testAcceleratorTypes: readonly AcceleratorTypeInfo[] = [
  accelerator('GPUX_A100_80GB', 80, 1, ['FP16', 'BF16', 'NF4']),
  accelerator('GPUX_H100_80GB', 80, 3, withFp8),
  accelerator('GPUX_H200_141GB', 141, 3, withFp8),
];

/** How the test runtime's replicas would be launched on Kubernetes (names under `test.example`). */
export const testLaunchProfile: LaunchProfile = {
  image: 'registry.test.example/engine:latest',
  deviceResource: 'test.example/accelerator',
  visibleDevicesEnv: 'TEST_VISIBLE_DEVICES',
  acceleratorTypeLabel: 'test.example/accelerator-type',
};

/**
 * A vendor-neutral accelerator runtime for tests, built on core's own pieces exactly like a vendor plugin
 * (`defineVendorRuntime`): `createTestRuntime(options)` is the runtime, `testRuntime(options)` the plugin
 * (id `runtime-test`). Provisioner: `simulated` by default, or any choice `VendorRuntimeOptions` allows,
 * e.g. `testRuntime({ provisioner: simulatedProvisioner({ delays }) })` to keep the provisioner in hand.
 */
export const { create: createTestRuntime, plugin: testRuntime } = defineVendorRuntime<VendorRuntimeOptions>({
  id: 'test',
  vendor: 'test',
  acceleratorTypes: testAcceleratorTypes,
  launch: testLaunchProfile,
});
