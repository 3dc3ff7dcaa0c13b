import type { Precision } from './precision.js';

/** The spec's acceleratorType enum. Runtimes declare which of these (or other, vendor-defined, values) they serve. */
export const acceleratorTypes = [
  'ACCELERATOR_TYPE_UNSPECIFIED',
  'GPUX_A100_80GB',
  'GPUX_H100_80GB',
  'GPUY_MI300X_192GB',
  'GPUX_A10G_24GB',
  'GPUX_A100_40GB',
  'GPUX_L4_24GB',
  'GPUX_H200_141GB',
  'GPUX_B200_180GB',
  'GPUY_MI325X_256GB',
  'GPUY_MI350X_288GB',
] as const;
export type KnownAcceleratorType = (typeof acceleratorTypes)[number];

/** The accelerator type a deployment shape gets when it names none (spec: default GPUX_A100_80GB). */
export const defaultAcceleratorType = 'GPUX_A100_80GB';

/**
 * An accelerator type string. The spec's values are {@link KnownAcceleratorType}; a third-party runtime may
 * declare more, so the port takes any UPPER_SNAKE string.
 */
export type AcceleratorType = KnownAcceleratorType | (string & {});

/** What a runtime declares about one accelerator type. */
export interface AcceleratorTypeInfo {
  /** UPPER_SNAKE enum value, e.g. `GPUX_H100_80GB`. */
  readonly type: AcceleratorType;
  /** Vendor id, equal to the owning runtime's `vendor` (e.g. `gpux`). */
  readonly vendor: string;
  /** Memory of one accelerator in GiB (the nominal figure in the type's name). */
  readonly memoryGiB: number;
  /** Precisions the hardware (and the runtime's engine image) can serve. Always includes FP16 or BF16. */
  readonly supportedPrecisions: readonly Precision[];
  /** Hardware generation within the vendor, 1 = oldest supported. Higher generations add number formats. */
  readonly generation: number;
  /** Human-readable generation / family label. */
  readonly generationName: string;
  /** Most accelerators of this type one replica may span (one node; tensor parallelism stays on a node). */
  readonly maxAcceleratorsPerReplica: number;
}

/** Tensor-parallel sizes a replica may use. */
export const tensorParallelSizes = [1, 2, 4, 8] as const;
