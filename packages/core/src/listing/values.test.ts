import { describe, expect, it } from 'vitest';
import { canonicalInt64, parseDuration, parseTimestamp, readPath, snakeToCamel, wildcardMatch } from './values.js';

describe('values', () => {
  it('parses RFC 3339 timestamps strictly', () => {
    expect(parseTimestamp('2024-02-29T23:59:59.9999Z')).toEqual({ iso: '2024-02-29T23:59:59.999Z', epochMs: Date.UTC(2024, 1, 29, 23, 59, 59, 999) });
    expect(parseTimestamp('0001-01-01T00:00:00Z')?.iso).toBe('0001-01-01T00:00:00.000Z');
    expect(parseTimestamp('0050-06-01t00:00:00z')?.iso).toBe('0050-06-01T00:00:00.000Z');
    expect(parseTimestamp('9999-12-31T23:59:59.999Z')?.iso).toBe('9999-12-31T23:59:59.999Z');
    for (const bad of ['0000-12-31T23:59:59Z', '9999-12-31T23:59:59-01:00', '2023-02-29T00:00:00Z', '2024-13-01T00:00:00Z', '2024-01-01T24:00:00Z', '2024-01-01T00:60:00Z', '2024-01-01T00:00:60Z', '2024-01-01T00:00:00', '2024-01-01 00:00:00Z', '2024-01-01T00:00:00+24:00', '2024-01-01T00:00:00.Z', '']) {
      expect(parseTimestamp(bad), bad).toBeUndefined();
    }
  });

  it('parses durations', () => {
    expect(parseDuration('30s')).toBe(30);
    expect(parseDuration('0.000000001s')).toBeCloseTo(1e-9);
    expect(parseDuration('-1.5s')).toBe(-1.5);
    expect(parseDuration('-0s')).toBe(0);
    for (const bad of ['30', '1m', 's', '1.s', '.5s', '1.5555555555s', '315576000001s']) expect(parseDuration(bad), bad).toBeUndefined();
  });

  it('canonicalises int64', () => {
    expect(canonicalInt64('-0007')).toBe('-7');
    expect(canonicalInt64('9223372036854775807')).toBe('9223372036854775807');
    expect(canonicalInt64('9223372036854775808')).toBeUndefined();
    expect(canonicalInt64('1e3')).toBeUndefined();
    expect(canonicalInt64('')).toBeUndefined();
  });

  it('matches wildcards without backtracking blow-up', () => {
    expect(wildcardMatch('a*c', 'abc')).toBe(true);
    expect(wildcardMatch('a*c', 'ac')).toBe(true);
    expect(wildcardMatch('a*c', 'acb')).toBe(false);
    expect(wildcardMatch('**', '')).toBe(true);
    expect(wildcardMatch('', '')).toBe(true);
    expect(wildcardMatch('', 'a')).toBe(false);
    expect(wildcardMatch('*a*b', 'xaybzb')).toBe(true);
    expect(wildcardMatch(`${'*a'.repeat(500)}b`, 'a'.repeat(5000))).toBe(false);
  });

  it('reads only own properties', () => {
    expect(readPath({ a: { b: 1 } }, ['a', 'b'])).toBe(1);
    expect(readPath({ a: [1] }, ['a', '0'])).toBeUndefined();
    expect(readPath({}, ['constructor'])).toBeUndefined();
    expect(readPath({}, ['toString'])).toBeUndefined();
  });

  it('converts snake_case segments', () => {
    expect(snakeToCamel('scale_up_window')).toBe('scaleUpWindow');
    expect(snakeToCamel('scaleUpWindow')).toBe('scaleUpWindow');
    expect(snakeToCamel('r2_score')).toBe('r2Score');
  });
});
