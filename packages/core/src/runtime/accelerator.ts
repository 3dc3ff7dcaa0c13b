import type { AcceleratorType } from '../resources/common/schema-parts.js';
import type { Precision } from './precision.js';

/** The accelerator type a deployment shape gets when it names none (spec: default GPUX_A100_80GB). */
export const defaultAcceleratorType: AcceleratorType = 'GPUX_A100_80GB';

/**
 * An accelerator type string. The spec's values are the resources' `AcceleratorType` enum; a third-party
 * runtime may declare more, so the port takes any UPPER_SNAKE string.
 */
export type AcceleratorTypeName = AcceleratorType | (string & {});

/** What a runtime declares about one accelerator type. */
export interface AcceleratorTypeInfo {
  /** UPPER_SNAKE enum value, e.g. `GPUX_H100_80GB`. */
  readonly type: AcceleratorTypeName;
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
