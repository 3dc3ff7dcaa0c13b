import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../contracts/json.js';
import { parseOrderBy } from './order-by.js';
import { compareSortKeys, sortKeyOf } from './sort-key.js';
import { declarations } from './test-fixtures.js';

const terms = (text: string) => parseOrderBy(text, declarations, 'create_time');

describe('sortKeyOf', () => {
  it('extracts normalised values, null when absent or of the wrong type', () => {
    const t = terms('create_time, example_count, autoscaling_policy.scale_up_window, enable_addons, min_replica_count, state');
    expect(
      sortKeyOf(
        {
          name: 'n1',
          createTime: '2024-05-01T14:00:00+02:00',
          exampleCount: '0042',
          autoscalingPolicy: { scaleUpWindow: '1.5s' },
          enableAddons: true,
          minReplicaCount: 'three',
        },
        t,
      ),
    ).toEqual(['2024-05-01T12:00:00.000Z', '42', 1.5, true, null, null, 'n1']);
    expect(sortKeyOf({}, t)).toEqual([null, null, null, null, null, null, null]);
  });
});

describe('compareSortKeys', () => {
  const sorted = (text: string, keys: JsonValue[][]): JsonValue[][] => {
    const t = terms(text);
    return [...keys].sort((a, b) => compareSortKeys(a, b, t));
  };

  it('puts null first ascending and last descending', () => {
    expect(sorted('display_name', [['b', 'n1'], [null, 'n2'], ['a', 'n3']])).toEqual([[null, 'n2'], ['a', 'n3'], ['b', 'n1']]);
    expect(sorted('display_name desc', [['b', 'n1'], [null, 'n2'], ['a', 'n3']])).toEqual([['b', 'n1'], ['a', 'n3'], [null, 'n2']]);
    expect(sorted('min_replica_count desc', [[null, 'a'], [0, 'b'], [-1, 'c']])).toEqual([[0, 'b'], [-1, 'c'], [null, 'a']]);
  });

  it('orders int64 numerically', () => {
    expect(sorted('example_count', [['10', 'a'], ['9', 'b'], ['-5', 'c'], ['9223372036854775807', 'd'], ['9223372036854775806', 'e']]).map((k) => k[0])).toEqual([
      '-5', '9', '10', '9223372036854775806', '9223372036854775807',
    ]);
  });

  it('orders numbers numerically and durations by seconds', () => {
    expect(sorted('temperature', [[10, 'a'], [9.5, 'b'], [-1, 'c']]).map((k) => k[0])).toEqual([-1, 9.5, 10]);
    expect(sorted('autoscaling_policy.scale_up_window desc', [[30, 'a'], [600, 'b'], [1.5, 'c']]).map((k) => k[0])).toEqual([600, 30, 1.5]);
  });

  it('orders strings by code units (uppercase before lowercase, like COLLATE "C")', () => {
    expect(sorted('display_name', [['b', '1'], ['B', '2'], ['a', '3'], ['é', '4'], ['', '5']]).map((k) => k[0])).toEqual(['', 'B', 'a', 'b', 'é']);
  });

  it('orders timestamps (normalised ISO) chronologically and booleans false < true', () => {
    expect(sorted('create_time', [['2024-05-01T12:00:00.000Z', 'a'], ['2023-12-31T23:59:59.999Z', 'b']]).map((k) => k[1])).toEqual(['b', 'a']);
    expect(sorted('enable_addons', [[true, 'a'], [false, 'b'], [null, 'c']]).map((k) => k[0])).toEqual([null, false, true]);
  });

  it('breaks ties with later terms, each in its own direction', () => {
    const keys: JsonValue[][] = [['READY', 'n1'], ['FAILED', 'n2'], ['READY', 'n0']];
    expect(sorted('state desc', keys)).toEqual([['READY', 'n0'], ['READY', 'n1'], ['FAILED', 'n2']]);
    expect(sorted('state desc, name desc', keys)).toEqual([['READY', 'n1'], ['READY', 'n0'], ['FAILED', 'n2']]);
  });

  it('is a total order: antisymmetric, zero only for equal keys', () => {
    const t = terms('display_name');
    const keys: JsonValue[][] = [[null, 'a'], ['x', 'a'], ['x', 'b'], [1, 'a'], [true, 'a']];
    for (const a of keys) {
      for (const b of keys) {
        expect(Math.sign(compareSortKeys(a, b, t)) + Math.sign(compareSortKeys(b, a, t))).toBe(0);
        expect(compareSortKeys(a, b, t) === 0).toBe(JSON.stringify(a) === JSON.stringify(b));
      }
    }
  });
});
