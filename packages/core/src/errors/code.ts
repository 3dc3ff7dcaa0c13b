/**
 * The gateway's status codes: the spec's Errors table (google.rpc.Code numbering), and the one place
 * that maps each code to its HTTP status.
 */
export const Code = {
  OK: 'OK',
  CANCELLED: 'CANCELLED',
  UNKNOWN: 'UNKNOWN',
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  DEADLINE_EXCEEDED: 'DEADLINE_EXCEEDED',
  NOT_FOUND: 'NOT_FOUND',
  ALREADY_EXISTS: 'ALREADY_EXISTS',
  PERMISSION_DENIED: 'PERMISSION_DENIED',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  RESOURCE_EXHAUSTED: 'RESOURCE_EXHAUSTED',
  FAILED_PRECONDITION: 'FAILED_PRECONDITION',
  ABORTED: 'ABORTED',
  OUT_OF_RANGE: 'OUT_OF_RANGE',
  UNIMPLEMENTED: 'UNIMPLEMENTED',
  INTERNAL: 'INTERNAL',
  UNAVAILABLE: 'UNAVAILABLE',
  DATA_LOSS: 'DATA_LOSS',
} as const;
export type Code = (typeof Code)[keyof typeof Code];

interface CodeInfo {
  readonly number: number;
  readonly httpStatus: number;
}

/** google.rpc.Code number and HTTP status of every code (the spec's table). */
export const codeTable: Readonly<Record<Code, CodeInfo>> = {
  OK: { number: 0, httpStatus: 200 },
  CANCELLED: { number: 1, httpStatus: 499 },
  UNKNOWN: { number: 2, httpStatus: 500 },
  INVALID_ARGUMENT: { number: 3, httpStatus: 400 },
  DEADLINE_EXCEEDED: { number: 4, httpStatus: 504 },
  NOT_FOUND: { number: 5, httpStatus: 404 },
  ALREADY_EXISTS: { number: 6, httpStatus: 409 },
  PERMISSION_DENIED: { number: 7, httpStatus: 403 },
  UNAUTHENTICATED: { number: 16, httpStatus: 401 },
  RESOURCE_EXHAUSTED: { number: 8, httpStatus: 429 },
  FAILED_PRECONDITION: { number: 9, httpStatus: 400 },
  ABORTED: { number: 10, httpStatus: 409 },
  OUT_OF_RANGE: { number: 11, httpStatus: 400 },
  UNIMPLEMENTED: { number: 12, httpStatus: 501 },
  INTERNAL: { number: 13, httpStatus: 500 },
  UNAVAILABLE: { number: 14, httpStatus: 503 },
  DATA_LOSS: { number: 15, httpStatus: 500 },
};

export const allCodes = Object.keys(codeTable) as Code[];

export function httpStatusOf(code: Code): number {
  return codeTable[code].httpStatus;
}

export function codeNumberOf(code: Code): number {
  return codeTable[code].number;
}
