import { invalidArgument } from '../errors/index.js';
import { tensorParallelSizes } from './accelerator.js';
import { bytesPerWeight, effectivePrecision, kvCacheBytesPerElement } from './precision.js';
import type { AcceleratorTypeInfo, SizingEstimate, SizingInput } from '../ports/accelerator-runtime.js';

/** Context length assumed when neither the shape nor the model gives one. */
export const defaultSizingContextLength = 8192;

/** Tunable constants of the sizing formula (see {@link estimateAcceleratorCount}). */
export interface SizingConstants {
  /** Fraction of the weights' bytes added for activations, engine workspace and fragmentation. Default 0.10. */
  readonly activationOverhead: number;
  /** Fraction of an accelerator's memory the engine may use. Default 0.90. */
  readonly memoryUtilization: number;
  /** `layers × kvWidth ≈ kvWidthFactor × √parameters` for dense GQA decoders. Default 0.3. */
  readonly kvWidthFactor: number;
  /** Full-length sequences the KV cache must hold at once. Default 1. */
  readonly kvCacheSequences: number;
}

export const defaultSizingConstants: SizingConstants = {
  activationOverhead: 0.1,
  memoryUtilization: 0.9,
  kvWidthFactor: 0.3,
  kvCacheSequences: 1,
};

const GiB = 1024 ** 3;

/**
 * Parses an int64-as-string parameter count.
 * @throws GatewayError INVALID_ARGUMENT (field `parameterCount`) unless it is a positive decimal integer.
 */
export function parseParameterCount(parameterCount: string, field = 'parameterCount'): number {
  if (typeof parameterCount !== 'string' || !/^[0-9]{1,19}$/.test(parameterCount) || /^0+$/.test(parameterCount)) {
    throw invalidArgument(`${field} must be a positive integer carried as a decimal string, got ${JSON.stringify(parameterCount)}`, {
      field,
    });
  }
  return Number(BigInt(parameterCount));
}

/**
 * Minimum accelerators one replica of a base model needs on an accelerator type.
 *
 * The formula (P = parameters, b_w = {@link bytesPerWeight}, b_kv = {@link kvCacheBytesPerElement},
 * C = context length, M = the accelerator's memory):
 *
 * ```
 * weights   = P × b_w
 * kvCache   = C × S × 2 × b_kv × 0.3·√P     (K and V for S full-length sequences, S = 1 by default)
 * overhead  = 0.10 × weights              (activations, engine workspace, fragmentation)
 * required  = weights + kvCache + overhead
 * usable    = M × 0.90                    (the engine's memory-utilization target)
 * minimum   = ⌈required / usable⌉
 * count     = the smallest tensor-parallel size in {1, 2, 4, 8} ≥ minimum
 * ```
 *
 * `0.3·√P` approximates `layers × KV width` of dense decoder-only models with grouped-query attention
 * (an 8B model has 32 layers × 1024 = 32,768 against 26,833; a 70B model 80 × 1024 = 81,920 against 79,373);
 * it errs large for very big models, which is the safe side. Example: 70B at BF16 with 8,192 tokens needs
 * ≈146 GiB, so 4 × 80 GiB accelerators (2.03 rounded up to a power of two) or 2 × 141 GiB.
 *
 * @throws GatewayError INVALID_ARGUMENT (field `parameterCount`) for a malformed count, (field `contextLength`)
 *   for a negative or fractional context length, and (field `acceleratorCount`) when the model does not fit on
 *   the largest replica of this type, naming the type, the precision and the memory needed.
 */
export function estimateAcceleratorCount(
  accelerator: AcceleratorTypeInfo,
  input: SizingInput,
  constants: SizingConstants = defaultSizingConstants,
): SizingEstimate {
  const parameters = parseParameterCount(input.parameterCount);
  const contextLength = input.contextLength === undefined || input.contextLength === 0 ? defaultSizingContextLength : input.contextLength;
  if (!Number.isInteger(contextLength) || contextLength < 0) {
    throw invalidArgument(`contextLength must be a non-negative integer, got ${contextLength}`, { field: 'contextLength' });
  }
  const weightBytes = parameters * bytesPerWeight(input.precision);
  const kvCacheBytes =
    contextLength * constants.kvCacheSequences * 2 * kvCacheBytesPerElement(input.precision) * constants.kvWidthFactor * Math.sqrt(parameters);
  const overheadBytes = constants.activationOverhead * weightBytes;
  const requiredBytes = weightBytes + kvCacheBytes + overheadBytes;
  const usableBytesPerAccelerator = accelerator.memoryGiB * GiB * constants.memoryUtilization;
  const minimumAccelerators = Math.max(1, Math.ceil(requiredBytes / usableBytesPerAccelerator));
  const max = Math.min(accelerator.maxAcceleratorsPerReplica, tensorParallelSizes[tensorParallelSizes.length - 1] ?? 8);
  const acceleratorCount = tensorParallelSizes.find((size) => size >= minimumAccelerators && size <= max);
  if (acceleratorCount === undefined) {
    throw invalidArgument(
      `a ${input.parameterCount}-parameter model at ${effectivePrecision(input.precision)} with a ${contextLength}-token context needs ` +
        `about ${(requiredBytes / GiB).toFixed(1)} GiB, more than ${max} × ${accelerator.type} ` +
        `(${((max * usableBytesPerAccelerator) / GiB).toFixed(1)} GiB usable) can hold; choose a larger accelerator type or a lower precision`,
      { field: 'acceleratorCount', reason: 'DEPLOYMENT_TOO_LARGE' },
    );
  }
  return {
    acceleratorCount,
    minimumAccelerators,
    requiredBytes,
    weightBytes,
    kvCacheBytes,
    overheadBytes,
    usableBytesPerAccelerator,
    contextLength,
  };
}

/**
 * Checks an explicitly requested accelerator count: it must be a tensor-parallel size (1, 2, 4, 8) no larger
 * than the type allows and, unless `disableDeploymentSizeValidation`, at least the estimate.
 * @returns the estimate, or undefined when validation is disabled and no estimate was computed.
 * @throws GatewayError INVALID_ARGUMENT (field `acceleratorCount`) when the count is not allowed or too small;
 *   whatever {@link estimateAcceleratorCount} throws.
 */
export function checkAcceleratorCount(
  accelerator: AcceleratorTypeInfo,
  acceleratorCount: number,
  input: SizingInput & { readonly disableDeploymentSizeValidation?: boolean },
  constants: SizingConstants = defaultSizingConstants,
): SizingEstimate | undefined {
  const max = Math.min(accelerator.maxAcceleratorsPerReplica, 8);
  if (!(tensorParallelSizes as readonly number[]).includes(acceleratorCount) || acceleratorCount > max) {
    throw invalidArgument(
      `acceleratorCount must be one of ${tensorParallelSizes.filter((s) => s <= max).join(', ')} for ${accelerator.type}, got ${acceleratorCount}`,
      { field: 'acceleratorCount' },
    );
  }
  if (input.disableDeploymentSizeValidation) return undefined;
  const estimate = estimateAcceleratorCount(accelerator, input, constants);
  if (acceleratorCount < estimate.acceleratorCount) {
    throw invalidArgument(
      `acceleratorCount ${acceleratorCount} is too small: a ${input.parameterCount}-parameter model at ${effectivePrecision(input.precision)} ` +
        `needs at least ${estimate.acceleratorCount} × ${accelerator.type} (about ${(estimate.requiredBytes / GiB).toFixed(1)} GiB); ` +
        `set disableDeploymentSizeValidation to skip this check`,
      { field: 'acceleratorCount', reason: 'DEPLOYMENT_TOO_SMALL' },
    );
  }
  return estimate;
}
