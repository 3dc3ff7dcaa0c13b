import type { AcceleratorType } from '../resources/common/schema-parts.js';

/** The accelerator type a deployment shape gets when it names none (spec: default GPUX_A100_80GB). */
export const defaultAcceleratorType: AcceleratorType = 'GPUX_A100_80GB';

/** Tensor-parallel sizes a replica may use. */
export const tensorParallelSizes = [1, 2, 4, 8] as const;
