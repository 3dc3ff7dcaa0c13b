import { describe, expect, it } from 'vitest';
import { blobEntityTag, chooseRange, contentRange, ifRangeHolds } from './http-range.js';

describe('chooseRange', () => {
  it.each([
    ['bytes=0-9', 100, { kind: 'part', offset: 0, length: 10 }],
    ['bytes=90-', 100, { kind: 'part', offset: 90, length: 10 }],
    ['bytes=-10', 100, { kind: 'part', offset: 90, length: 10 }],
    ['bytes=-1000', 100, { kind: 'part', offset: 0, length: 100 }],
    ['bytes=99-1000', 100, { kind: 'part', offset: 99, length: 1 }],
    ['BYTES = 5-5', 100, { kind: 'part', offset: 5, length: 1 }],
    ['bytes=0-99999999999999999999', 100, { kind: 'part', offset: 0, length: 100 }],
    ['bytes=100-', 100, { kind: 'unsatisfiable' }],
    ['bytes=100-200', 100, { kind: 'unsatisfiable' }],
    ['bytes=99999999999999999999-', 100, { kind: 'unsatisfiable' }],
    ['bytes=-0', 100, { kind: 'unsatisfiable' }],
    ['bytes=-5', 0, { kind: 'unsatisfiable' }],
    ['bytes=0-', 0, { kind: 'unsatisfiable' }],
    [undefined, 100, { kind: 'whole' }],
    ['', 100, { kind: 'whole' }],
    ['bytes=0-1,5-6', 100, { kind: 'whole' }],
    ['bytes=9-2', 100, { kind: 'whole' }],
    ['bytes=-', 100, { kind: 'whole' }],
    ['bytes=a-b', 100, { kind: 'whole' }],
    ['items=0-1', 100, { kind: 'whole' }],
  ] as const)('%s of %i bytes', (header, size, expected) => {
    expect(chooseRange(header, size)).toEqual(expected);
  });
});

describe('If-Range and headers', () => {
  const tag = blobEntityTag('ab12');
  it('holds without a validator or with the current strong tag only', () => {
    expect(tag).toBe('"ab12"');
    expect(ifRangeHolds(undefined, tag)).toBe(true);
    expect(ifRangeHolds('"ab12"', tag)).toBe(true);
    expect(ifRangeHolds('W/"ab12"', tag)).toBe(false);
    expect(ifRangeHolds('"other"', tag)).toBe(false);
    expect(ifRangeHolds('Tue, 24 Nov 2026 00:00:00 GMT', tag)).toBe(false);
    expect(ifRangeHolds('"ab12"', blobEntityTag(''))).toBe(false);
  });
  it('formats Content-Range', () => {
    expect(contentRange(90, 10, 100)).toBe('bytes 90-99/100');
  });
});
