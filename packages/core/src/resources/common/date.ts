import { invalidArgument } from '../../errors/index.js';
import type { JsonValue } from '../../ports/json.js';
import { isPlainObject } from '../../validation/paths.js';

function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    // Without a year, 29 February is allowed (a recurring date).
    if (year === 0) return 29;
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    return leap ? 29 : 28;
  }
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Checks a google.type.Date: year 0 or 1–9999, month 0 or 1–12, day 0 or 1–31 and valid for the year
 * and month (29 February only in leap years); a day needs a month. Throws INVALID_ARGUMENT naming `field`.
 */
export function assertValidDate(value: JsonValue | undefined, field: string): void {
  if (value === undefined || !isPlainObject(value)) return;
  const year = typeof value.year === 'number' ? value.year : 0;
  const month = typeof value.month === 'number' ? value.month : 0;
  const day = typeof value.day === 'number' ? value.day : 0;
  if (day !== 0 && month === 0) throw invalidArgument(`${field} has a day but no month`, { field });
  if (year === 0 && month === 0 && day === 0) throw invalidArgument(`${field} must set at least a year or a month`, { field });
  if (day !== 0 && day > daysInMonth(year, month)) {
    throw invalidArgument(`${field} ${year}-${month}-${day} is not a valid date`, { field });
  }
}
