import type { AcceleratorTypeInfo, LaunchProfile } from '@berth/core';
import { acceleratorCatalogue } from '@berth/runtime-kit';

/**
 * The vendor's accelerators: memory, the precisions the hardware runs, generation, and the largest
 * tensor-parallel replica (8 unless given). Replace with your own; type names are UPPER_SNAKE and start
 * with your prefix. Rows: type, memory GiB, generation, generation name, supported precisions.
 */
export const acmeAcceleratorTypes: readonly AcceleratorTypeInfo[] = acceleratorCatalogue('acme', [
  ['ACME_Z1_64GB', 64, 1, 'Z1', ['FP16', 'BF16', 'FP8']],
  ['ACME_Z2_128GB', 128, 2, 'Z2', ['FP16', 'BF16', 'FP8', 'FP4']],
]);

/** How replicas run on a container platform (used by the `kubernetes` provisioner). */
export const acmeLaunchProfile: LaunchProfile = {
  image: 'registry.example.com/acme/inference-engine:1.0',
  deviceResource: 'acme.example/npu',
  visibleDevicesEnv: 'ACME_VISIBLE_DEVICES',
  acceleratorTypeLabel: 'acme.example/accelerator-type',
};
