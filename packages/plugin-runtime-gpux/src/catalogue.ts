import { acceleratorCatalogue } from '@berth/runtime-kit';
import { fp4Precisions, fp8Precisions, type AcceleratorTypeInfo, type LaunchProfile, type Precision } from '@berth/core';

const half: readonly Precision[] = ['FP16', 'BF16'];
/** NF4 runs on bitsandbytes-style kernels, which every GPUX generation here has (see README). */
const ampere: readonly Precision[] = [...half, 'NF4'];
const withFp8: readonly Precision[] = [...half, ...fp8Precisions, 'NF4'];
const withFp4: readonly Precision[] = [...withFp8, ...fp4Precisions];

/**
 * The GPUX catalogue. Generations: 1 = A-series (A10G, A100; FP16/BF16), 2 = L-series (L4; adds FP8),
 * 3 = H-series (H100, H200; FP8), 4 = B-series (B200; adds FP4).
 */
export const gpuxAcceleratorTypes: readonly AcceleratorTypeInfo[] = acceleratorCatalogue('gpux', [
  ['GPUX_A10G_24GB', 24, 1, 'A-series', ampere],
  ['GPUX_A100_40GB', 40, 1, 'A-series', ampere],
  ['GPUX_A100_80GB', 80, 1, 'A-series', ampere],
  ['GPUX_L4_24GB', 24, 2, 'L-series', withFp8],
  ['GPUX_H100_80GB', 80, 3, 'H-series', withFp8],
  ['GPUX_H200_141GB', 141, 3, 'H-series', withFp8],
  ['GPUX_B200_180GB', 180, 4, 'B-series', withFp4],
]);

/** How GPUX replicas are launched on Kubernetes (every field can be overridden through the plugin's `launch` option). */
export const gpuxLaunchProfile: LaunchProfile = {
  image: 'ghcr.io/berth-dev/engine-gpux:latest',
  deviceResource: 'gpux.example/gpu',
  visibleDevicesEnv: 'GPUX_VISIBLE_DEVICES',
  acceleratorTypeLabel: 'gpux.example/accelerator-type',
  port: 8000,
  env: { GPUX_DRIVER_CAPABILITIES: 'compute,utility' },
};
