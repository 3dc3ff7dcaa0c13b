import { precisionValues, type Precision } from '../resources/common/schema-parts.js';

/**
 * Numeric precisions a model can be served at (the spec's Precision enum) and the vendor-neutral facts
 * about each: bytes per weight, bytes per KV-cache element, and how an engine is told to use it.
 */
export const precisions = precisionValues;
export type { Precision };

/** The FP8 family: needs hardware FP8 support. */
export const fp8Precisions = [
  'FP8',
  'FP8_MM',
  'FP8_AR',
  'FP8_MM_KV_ATTN',
  'FP8_KV',
  'FP8_MM_V2',
  'FP8_V2',
  'FP8_MM_KV_ATTN_V2',
] as const satisfies readonly Precision[];

/** The FP4 family: needs the newest generation's FP4 tensor units. */
export const fp4Precisions = ['FP4', 'FP4_BLOCKSCALED_MM', 'FP4_MX_MOE'] as const satisfies readonly Precision[];

/** 16-bit floating point: every accelerator type supports these. */
export const halfPrecisions = ['FP16', 'BF16'] as const satisfies readonly Precision[];

export { isPrecision } from '../contracts/precision.js';

/** The precision a deployment runs at when it names none (PRECISION_UNSPECIFIED or absent). */
export const defaultPrecision: Precision = 'BF16';

/** PRECISION_UNSPECIFIED and absent both mean {@link defaultPrecision}. */
export function effectivePrecision(precision: Precision | undefined): Exclude<Precision, 'PRECISION_UNSPECIFIED'> {
  return precision === undefined || precision === 'PRECISION_UNSPECIFIED'
    ? (defaultPrecision as Exclude<Precision, 'PRECISION_UNSPECIFIED'>)
    : precision;
}

/**
 * Bytes one weight takes in memory at a precision.
 * - FP16/BF16: 2.
 * - FP8 variants: 1, except FP8_KV which quantizes only the KV cache (weights stay 16-bit: 2).
 * - 4-bit formats (NF4, FP4, FP4_BLOCKSCALED_MM, FP4_MX_MOE): 0.5625, i.e. 4 bits plus one 8-bit scale per
 *   block of 16 weights (NF4's 64-weight blocks with double-quantized absmax come out about the same).
 */
export function bytesPerWeight(precision: Precision | undefined): number {
  const p = effectivePrecision(precision);
  if (p === 'FP16' || p === 'BF16' || p === 'FP8_KV') return 2;
  if ((fp8Precisions as readonly string[]).includes(p)) return 1;
  return 0.5625;
}

/**
 * Bytes one KV-cache element takes: 1 for the variants that quantize the KV cache (FP8_KV, FP8_MM_KV_ATTN,
 * FP8_MM_KV_ATTN_V2), otherwise 2 (16-bit; 4-bit formats quantize weights only).
 */
export function kvCacheBytesPerElement(precision: Precision | undefined): number {
  const p = effectivePrecision(precision);
  return p === 'FP8_KV' || p === 'FP8_MM_KV_ATTN' || p === 'FP8_MM_KV_ATTN_V2' ? 1 : 2;
}

/** How an OpenAI-compatible engine is told to run at a precision (vLLM-style argument values). */
export interface PrecisionEngineSettings {
  /** `--dtype`: the activation / unquantized-weight type. */
  readonly dtype: 'float16' | 'bfloat16';
  /** `--quantization`, when the weights are quantized. */
  readonly quantization?: string;
  /** `--kv-cache-dtype`, when the KV cache is quantized. */
  readonly kvCacheDtype?: 'fp8';
  /** Extra engine flags a variant needs (e.g. FP8 all-reduce, FP8 attention). */
  readonly extraArgs: readonly string[];
}

/**
 * Engine settings per precision. Suffixes: MM = matmuls in FP8, KV = KV cache in FP8, ATTN = attention in FP8,
 * AR = tensor-parallel all-reduce in FP8, V2 = the second-generation (per-block scaled) kernels.
 */
export function precisionEngineSettings(precision: Precision | undefined): PrecisionEngineSettings {
  const p = effectivePrecision(precision);
  switch (p) {
    case 'FP16':
      return { dtype: 'float16', extraArgs: [] };
    case 'BF16':
      return { dtype: 'bfloat16', extraArgs: [] };
    case 'FP8':
    case 'FP8_MM':
      return { dtype: 'bfloat16', quantization: 'fp8', extraArgs: [] };
    case 'FP8_V2':
    case 'FP8_MM_V2':
      return { dtype: 'bfloat16', quantization: 'fp8_block', extraArgs: [] };
    case 'FP8_AR':
      return { dtype: 'bfloat16', quantization: 'fp8', extraArgs: ['--fp8-all-reduce'] };
    case 'FP8_KV':
      return { dtype: 'bfloat16', kvCacheDtype: 'fp8', extraArgs: [] };
    case 'FP8_MM_KV_ATTN':
      return { dtype: 'bfloat16', quantization: 'fp8', kvCacheDtype: 'fp8', extraArgs: ['--fp8-attention'] };
    case 'FP8_MM_KV_ATTN_V2':
      return { dtype: 'bfloat16', quantization: 'fp8_block', kvCacheDtype: 'fp8', extraArgs: ['--fp8-attention'] };
    case 'NF4':
      return { dtype: 'bfloat16', quantization: 'bitsandbytes_nf4', extraArgs: [] };
    case 'FP4':
      return { dtype: 'bfloat16', quantization: 'fp4', extraArgs: [] };
    case 'FP4_BLOCKSCALED_MM':
      return { dtype: 'bfloat16', quantization: 'fp4_blockscaled', extraArgs: [] };
    case 'FP4_MX_MOE':
      return { dtype: 'bfloat16', quantization: 'mxfp4', extraArgs: [] };
  }
}
