/** Numeric precisions a model can be served at: the specification's Precision enum, vendor-neutral. */
export const precisionValues = [
  'PRECISION_UNSPECIFIED', 'FP16', 'FP8', 'FP8_MM', 'FP8_AR', 'FP8_MM_KV_ATTN', 'FP8_KV', 'FP8_MM_V2', 'FP8_V2',
  'FP8_MM_KV_ATTN_V2', 'NF4', 'FP4', 'BF16', 'FP4_BLOCKSCALED_MM', 'FP4_MX_MOE',
] as const;
export type Precision = (typeof precisionValues)[number];

/** True for a value of the Precision enum (PRECISION_UNSPECIFIED included). */
export function isPrecision(value: unknown): value is Precision {
  return typeof value === 'string' && (precisionValues as readonly string[]).includes(value);
}
