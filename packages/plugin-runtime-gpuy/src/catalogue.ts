import { acceleratorCatalogue } from '@berth/runtime-kit';
import { fp4Precisions, fp8Precisions, type AcceleratorTypeInfo, type LaunchProfile, type Precision } from '@berth/core';

const withFp8: readonly Precision[] = ['FP16', 'BF16', ...fp8Precisions];
/** No NF4 on GPUY: the bitsandbytes-style NF4 kernels are not part of the GPUY engine image (see README). */
const withFp4: readonly Precision[] = [...withFp8, ...fp4Precisions];

/** The GPUY catalogue. Generations: 1 = MI300 series (MI300X, MI325X; FP8), 2 = MI350 series (MI350X; adds FP4). */
export const gpuyAcceleratorTypes: readonly AcceleratorTypeInfo[] = acceleratorCatalogue('gpuy', [
  ['GPUY_MI300X_192GB', 192, 1, 'MI300-series', withFp8],
  ['GPUY_MI325X_256GB', 256, 1, 'MI300-series', withFp8],
  ['GPUY_MI350X_288GB', 288, 2, 'MI350-series', withFp4],
]);

/** How GPUY replicas are launched on Kubernetes (every field can be overridden through the plugin's `launch` option). */
export const gpuyLaunchProfile: LaunchProfile = {
  image: 'ghcr.io/berth-dev/engine-gpuy:latest',
  deviceResource: 'gpuy.example/gpu',
  visibleDevicesEnv: 'GPUY_VISIBLE_DEVICES',
  acceleratorTypeLabel: 'gpuy.example/accelerator-type',
  port: 8000,
  env: { GPUY_FORCE_P2P: '1' },
};
