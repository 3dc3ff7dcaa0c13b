import {
  acceleratorRuntimesToken,
  createAcceleratorRuntime,
  definePlugin,
  fp8Precisions,
  simulatedProvisioner,
  type AcceleratorRuntime,
  type AcceleratorTypeInfo,
  type GatewayPlugin,
  type LaunchProfile,
  type Provisioner,
  type SimulatedProvisionerOptions,
} from '../index.js';

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

/** Options of the test runtime. */
export interface TestRuntimeOptions {
  /**
   * The provisioner. Default: a fresh simulated one built from `simulated`, which the plugin closes when
   * the gateway stops. A provisioner given here belongs to the caller, who closes it.
   */
  readonly provisioner?: Provisioner;
  /** Options of the default simulated provisioner (phase delays, failures, inventory). */
  readonly simulated?: SimulatedProvisionerOptions;
}

function build(options: TestRuntimeOptions): AcceleratorRuntime {
  return createAcceleratorRuntime({
    id: 'test',
    vendor: 'test',
    acceleratorTypes: testAcceleratorTypes,
    launch: testLaunchProfile,
    provisioner: options.provisioner ?? simulatedProvisioner(options.simulated),
  });
}

/**
 * A vendor-neutral accelerator runtime for tests, built from core's own pieces (`createAcceleratorRuntime`
 * and, by default, `simulatedProvisioner`) exactly as a vendor plugin's is: catalogue
 * {@link testAcceleratorTypes}, vendor and id `test`.
 */
export function createTestRuntime(options: TestRuntimeOptions = {}): AcceleratorRuntime {
  return build(options);
}

/**
 * The test runtime as a plugin (id `runtime-test`): contributes {@link createTestRuntime}'s runtime to
 * `acceleratorRuntimesToken` and, on stop, closes the provisioner it created (not one it was given).
 * E.g. `testRuntime({ provisioner })` to keep a simulated provisioner in hand and change its inventory.
 */
export function testRuntime(options: TestRuntimeOptions = {}): GatewayPlugin {
  const runtime = build(options);
  const ownsProvisioner = options.provisioner === undefined;
  return definePlugin({
    id: 'runtime-test',
    register(binder) {
      binder.contribute(acceleratorRuntimesToken, runtime);
    },
    async stop() {
      if (ownsProvisioner) await runtime.provisioner.close();
    },
  });
}
