import { describe, expect, it } from 'vitest';
import { allCodes, Code, codeNumberOf, codeTable, httpStatusOf } from './code.js';

/** The spec's Errors table: code → (google.rpc number, HTTP status). */
const specTable: ReadonlyArray<[Code, number, number]> = [
  ['OK', 0, 200],
  ['CANCELLED', 1, 499],
  ['UNKNOWN', 2, 500],
  ['INVALID_ARGUMENT', 3, 400],
  ['DEADLINE_EXCEEDED', 4, 504],
  ['NOT_FOUND', 5, 404],
  ['ALREADY_EXISTS', 6, 409],
  ['PERMISSION_DENIED', 7, 403],
  ['UNAUTHENTICATED', 16, 401],
  ['RESOURCE_EXHAUSTED', 8, 429],
  ['FAILED_PRECONDITION', 9, 400],
  ['ABORTED', 10, 409],
  ['OUT_OF_RANGE', 11, 400],
  ['UNIMPLEMENTED', 12, 501],
  ['INTERNAL', 13, 500],
  ['UNAVAILABLE', 14, 503],
  ['DATA_LOSS', 15, 500],
];

describe('Code → HTTP table', () => {
  it('has exactly the 17 codes of the spec', () => {
    expect(allCodes).toHaveLength(17);
    expect(new Set(allCodes)).toEqual(new Set(specTable.map(([code]) => code)));
    expect(Object.keys(Code).sort()).toEqual([...allCodes].sort());
    for (const [key, value] of Object.entries(Code)) expect(value).toBe(key);
  });

  it.each(specTable)('%s is number %i and HTTP %i', (code, number, status) => {
    expect(codeNumberOf(code)).toBe(number);
    expect(httpStatusOf(code)).toBe(status);
    expect(codeTable[code]).toEqual({ number, httpStatus: status });
  });

  it('gives every code a distinct google.rpc number', () => {
    const numbers = allCodes.map(codeNumberOf);
    expect(new Set(numbers).size).toBe(17);
    expect([...numbers].sort((a, b) => a - b)).toEqual([...Array(17).keys()]);
  });
});
