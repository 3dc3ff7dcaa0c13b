import { describe, expect, it } from 'vitest';
import { assertValidDate } from './date.js';

describe('assertValidDate (google.type.Date)', () => {
  it.each([
    ['2024-02-29 (leap year)', { year: 2024, month: 2, day: 29 }],
    ['2000-02-29 (divisible by 400)', { year: 2000, month: 2, day: 29 }],
    ['year 0 with 29 February (recurring date)', { year: 0, month: 2, day: 29 }],
    ['a month without a day', { year: 2025, month: 6 }],
    ['a year alone', { year: 2025 }],
    ['31 January', { year: 2025, month: 1, day: 31 }],
    ['30 April', { year: 2025, month: 4, day: 30 }],
  ])('accepts %s', (_label, date) => {
    expect(() => assertValidDate(date, 'deprecationDate')).not.toThrow();
  });

  it.each([
    ['2023-02-29 (not a leap year)', { year: 2023, month: 2, day: 29 }],
    ['1900-02-29 (century, not divisible by 400)', { year: 1900, month: 2, day: 29 }],
    ['year 0 with 30 February', { year: 0, month: 2, day: 30 }],
    ['31 April', { year: 2025, month: 4, day: 31 }],
    ['a day without a month', { year: 2025, day: 5 }],
    ['all zero', { year: 0, month: 0, day: 0 }],
  ])('rejects %s naming the field', (_label, date) => {
    expect(() => assertValidDate(date, 'deprecationDate')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', field: 'deprecationDate' }));
  });

  it('ignores absent values', () => {
    expect(() => assertValidDate(undefined, 'deprecationDate')).not.toThrow();
  });
});
