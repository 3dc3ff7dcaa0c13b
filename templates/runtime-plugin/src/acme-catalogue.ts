import type { AcceleratorTypeInfo, LaunchProfile } from '@berth/core';

/**
 * The vendor's accelerators: memory, the precisions the hardware runs, generation, and the largest
 * tensor-parallel replica. Replace with your own; type names are UPPER_SNAKE and start with your prefix.
 */
export const acmeAcceleratorTypes: readonly AcceleratorTypeInfo[] = [
  { type: 'ACME_Z1_64GB', vendor: 'acme', memoryGiB: 64, supportedPrecisions: ['FP16', 'BF16', 'FP8'], generation: 1, generationName: 'Z1', maxAcceleratorsPerReplica: 8 },
  { type: 'ACME_Z2_128GB', vendor: 'acme', memoryGiB: 128, supportedPrecisions: ['FP16', 'BF16', 'FP8', 'FP4'], generation: 2, generationName: 'Z2', maxAcceleratorsPerReplica: 8 },
];

/** How replicas run on a container platform (used by the `kubernetes` provisioner). */
export const acmeLaunchProfile: LaunchProfile = {
  image: 'registry.example.com/acme/inference-engine:1.0',
  deviceResource: 'acme.example/npu',
  visibleDevicesEnv: 'ACME_VISIBLE_DEVICES',
  acceleratorTypeLabel: 'acme.example/accelerator-type',
};
