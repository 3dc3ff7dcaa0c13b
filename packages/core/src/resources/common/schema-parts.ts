/** Schema fragments shared by resource schemas (JSON Schema, `as const`). */
import { isPrecision, precisionValues, type Precision } from '../../contracts/precision.js';
import type { SchemaType } from './schema-type.js';

export { precisionValues, type Precision };
export const int32Schema = { type: 'integer', minimum: -2147483648, maximum: 2147483647 } as const;
export const nonNegativeInt32Schema = { type: 'integer', minimum: 0, maximum: 2147483647 } as const;
/**
 * 64-bit integers travel as JSON strings of digits; the `int64` format checks the range
 * (-9223372036854775808 to 9223372036854775807), which 19 digits alone do not.
 */
export const int64Schema = { type: 'string', pattern: '^-?[0-9]{1,19}$', format: 'int64' } as const;
/** A count carried as int64 (parameterCount, exampleCount, …): 0 to 9223372036854775807. */
export const nonNegativeInt64Schema = { type: 'string', pattern: '^[0-9]{1,19}$', format: 'int64' } as const;
export const timestampSchema = { type: 'string', format: 'date-time' } as const;
/** protobuf-JSON duration such as "30s" or "1.5s". */
export const durationSchema = { type: 'string', pattern: '^-?[0-9]{1,12}(\\.[0-9]{1,9})?s$' } as const;

export const codeValues = [
  'OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS',
  'PERMISSION_DENIED', 'UNAUTHENTICATED', 'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED',
  'OUT_OF_RANGE', 'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS',
] as const;

export const statusSchema = {
  type: 'object',
  properties: { code: { type: 'string', enum: codeValues }, message: { type: 'string' } },
} as const;

export const precisionSchema = { type: 'string', enum: precisionValues } as const;

/** A precision other than PRECISION_UNSPECIFIED. */
export function isSpecifiedPrecision(value: unknown): value is Exclude<Precision, 'PRECISION_UNSPECIFIED'> {
  return isPrecision(value) && value !== 'PRECISION_UNSPECIFIED';
}

export const acceleratorTypeValues = [
  'ACCELERATOR_TYPE_UNSPECIFIED', 'GPUX_A100_80GB', 'GPUX_H100_80GB', 'GPUY_MI300X_192GB', 'GPUX_A10G_24GB',
  'GPUX_A100_40GB', 'GPUX_L4_24GB', 'GPUX_H200_141GB', 'GPUX_B200_180GB', 'GPUY_MI325X_256GB', 'GPUY_MI350X_288GB',
] as const;
export type AcceleratorType = (typeof acceleratorTypeValues)[number];
/** The type a deployment or shape gets when it names none (the specification's default). */
export const specDefaultAcceleratorType: AcceleratorType = 'GPUX_A100_80GB';
/**
 * An accelerator type: one of the spec's (`acceleratorTypeValues`) or one that an installed runtime
 * plugin declares (third-party vendors). Which ones are usable is checked against the installed
 * runtimes; without any runtime plugin only the spec's types are accepted.
 */
export const acceleratorTypeSchema = {
  type: 'string',
  pattern: '^[A-Z][A-Z0-9_]{0,62}$',
  description: `One of ${acceleratorTypeValues.join(', ')}, or a type declared by an installed runtime plugin.`,
} as const;

export const regionValues = [
  'REGION_UNSPECIFIED', 'US_IOWA_1', 'US_VIRGINIA_1', 'US_VIRGINIA_2', 'US_ILLINOIS_1', 'AP_TOKYO_1', 'EU_LONDON_1',
  'US_ARIZONA_1', 'US_TEXAS_1', 'US_ILLINOIS_2', 'EU_FRANKFURT_1', 'US_TEXAS_2', 'EU_PARIS_1', 'EU_HELSINKI_1',
  'US_NEVADA_1', 'EU_ICELAND_1', 'EU_ICELAND_2', 'US_WASHINGTON_1', 'US_WASHINGTON_2', 'EU_ICELAND_DEV_1',
  'US_WASHINGTON_3', 'US_ARIZONA_2', 'AP_TOKYO_2', 'US_CALIFORNIA_1', 'US_MISSOURI_1', 'US_UTAH_1', 'US_TEXAS_3',
  'US_ARIZONA_3', 'US_GEORGIA_1', 'US_GEORGIA_2', 'US_WASHINGTON_4', 'US_GEORGIA_3', 'NA_BRITISHCOLUMBIA_1',
  'US_GEORGIA_4', 'EU_ICELAND_3', 'US_OHIO_1', 'US_NEWYORK_1',
] as const;
export const regionSchema = { type: 'string', enum: regionValues } as const;

export const jobStateValues = [
  'JOB_STATE_UNSPECIFIED', 'JOB_STATE_CREATING', 'JOB_STATE_RUNNING', 'JOB_STATE_COMPLETED', 'JOB_STATE_FAILED',
  'JOB_STATE_CANCELLED', 'JOB_STATE_DELETING', 'JOB_STATE_WRITING_RESULTS', 'JOB_STATE_VALIDATING',
  'JOB_STATE_DELETING_CLEANING_UP', 'JOB_STATE_PENDING', 'JOB_STATE_EXPIRED', 'JOB_STATE_RE_QUEUEING',
  'JOB_STATE_CREATING_INPUT_DATASET', 'JOB_STATE_IDLE', 'JOB_STATE_CANCELLING', 'JOB_STATE_EARLY_STOPPED',
  'JOB_STATE_PAUSED',
] as const;
export type JobState = (typeof jobStateValues)[number];

export const jobProgressSchema = {
  type: 'object',
  properties: {
    percent: { type: 'number' },
    epoch: { type: 'number' },
    totalInputRequests: { type: 'number' },
    totalProcessedRequests: { type: 'number' },
    successfullyProcessedRequests: { type: 'number' },
    failedRequests: { type: 'number' },
    outputRows: { type: 'number' },
    inputTokens: { type: 'number' },
    outputTokens: { type: 'number' },
    cachedInputTokenCount: { type: 'number' },
  },
} as const;
export type JobProgress = SchemaType<typeof jobProgressSchema>;

/** Google Date: year 0 or 1–9999, month 0 or 1–12, day 0 or 1–31 (validity checked in code). */
export const dateSchema = {
  type: 'object',
  properties: {
    year: { type: 'integer', minimum: 0, maximum: 9999 },
    month: { type: 'integer', minimum: 0, maximum: 12 },
    day: { type: 'integer', minimum: 0, maximum: 31 },
  },
} as const;

/** Fields every resource carries. */
export const nameSchema = { type: 'string', maxLength: 512 } as const;
/** "fewer than 64 characters". */
export const displayNameSchema = { type: 'string', maxLength: 63 } as const;
/** "fewer than 1000 characters". */
export const descriptionSchema = { type: 'string', maxLength: 999 } as const;

/**
 * AIP-154 `etag`, output only: the resource's current version. Send it back (in the body or an
 * `If-Match` header) on PATCH or DELETE to apply the change only if nobody changed the resource since.
 */
export const etagSchema = {
  type: 'string',
  readOnly: true,
  description: 'Output only. Version of the resource (AIP-154); send it back as `etag` or `If-Match` to update or delete only this version.',
} as const;
