import { describe, expect, it } from 'vitest';
import { errorCode } from './error-code.js';

describe('errorCode', () => {
  it('reads a code, or the first one along the cause chain', () => {
    expect(errorCode(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe('ECONNREFUSED');
    expect(errorCode(new TypeError('fetch failed', { cause: Object.assign(new Error('y'), { code: 'ENOTFOUND' }) }))).toBe('ENOTFOUND');
    expect(errorCode(new Error('none'))).toBeUndefined();
    expect(errorCode('text')).toBeUndefined();
  });
});
