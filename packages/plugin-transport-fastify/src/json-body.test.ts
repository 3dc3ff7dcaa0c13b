import { describe, expect, it } from 'vitest';
import { isGatewayError } from '@berth/core';
import { assertJsonWithinLimits, parseJsonBody } from './json-body.js';

const limits = { maxDepth: 4, maxKeys: 5, maxValues: 8, maxStringLength: 40 };

function failure(run: () => unknown): { reason: string | undefined; message: string } | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (!isGatewayError(error)) throw error;
    return { reason: error.reason, message: error.message };
  }
}

describe('assertJsonWithinLimits', () => {
  it('accepts bodies at the limits', () => {
    expect(failure(() => assertJsonWithinLimits('[[[[1]]]]', limits))).toBeUndefined();
    expect(failure(() => assertJsonWithinLimits('{"a":1,"b":2,"c":3,"d":4,"e":5}', limits))).toBeUndefined();
    expect(failure(() => assertJsonWithinLimits('[1,2,3,4,5,6,7,8]', limits))).toBeUndefined();
  });

  it('refuses nesting deeper than maxDepth (400 JSON_TOO_DEEP)', () => {
    expect(failure(() => assertJsonWithinLimits('[[[[[1]]]]]', limits))?.reason).toBe('JSON_TOO_DEEP');
    expect(failure(() => assertJsonWithinLimits('{"a":{"b":{"c":{"d":{}}}}}', limits))?.reason).toBe('JSON_TOO_DEEP');
  });

  it('refuses more keys or values than allowed (BODY_TOO_LARGE)', () => {
    expect(failure(() => assertJsonWithinLimits('{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6}', limits))?.reason).toBe('BODY_TOO_LARGE');
    expect(failure(() => assertJsonWithinLimits('[1,2,3,4,5,6,7,8,9]', limits))?.reason).toBe('BODY_TOO_LARGE');
  });

  it('refuses a string longer than maxStringLength (BODY_TOO_LARGE), key or value', () => {
    expect(failure(() => assertJsonWithinLimits(`["${'x'.repeat(40)}"]`, limits))).toBeUndefined();
    expect(failure(() => assertJsonWithinLimits(`["${'x'.repeat(41)}"]`, limits))?.reason).toBe('BODY_TOO_LARGE');
    expect(failure(() => assertJsonWithinLimits(`{"${'k'.repeat(41)}":1}`, limits))?.reason).toBe('BODY_TOO_LARGE');
  });

  it('ignores structure characters inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ a: '[[[[[[{{{{:::,,,,,,,,,,"\\"', b: '\\', c: ['"'] });
    expect(failure(() => assertJsonWithinLimits(text, limits))).toBeUndefined();
    expect(JSON.parse(text)).toBeTruthy();
  });

  it('counts structure after a string ending in escaped backslashes', () => {
    // "x\\" ends the string (the backslash is escaped); the brackets after it are structure.
    expect(failure(() => assertJsonWithinLimits('["x\\\\",[[[[1]]]]]', limits))?.reason).toBe('JSON_TOO_DEEP');
  });
});

describe('parseJsonBody', () => {
  it('parses, answers undefined for an empty body and 400 INVALID_JSON for bad JSON', () => {
    expect(parseJsonBody('{"a":[1,2]}', limits)).toEqual({ a: [1, 2] });
    expect(parseJsonBody('  ', limits)).toBeUndefined();
    expect(failure(() => parseJsonBody('{"a":', limits))?.reason).toBe('INVALID_JSON');
    expect(failure(() => parseJsonBody('"unterminated', limits))?.reason).toBe('INVALID_JSON');
  });
});
