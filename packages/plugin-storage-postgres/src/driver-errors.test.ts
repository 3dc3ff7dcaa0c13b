import { describe, expect, it } from 'vitest';
import { Code, GatewayError } from '@berth/core';
import { isRetryableConflict, mapDriverError } from './driver-errors.js';

const driverError = (code: string, message = 'driver error'): Error => Object.assign(new Error(message), { code });

describe('mapDriverError', () => {
  it.each([
    ['23505', Code.ALREADY_EXISTS],
    ['40001', Code.ABORTED],
    ['40P01', Code.ABORTED],
    ['ECONNREFUSED', Code.UNAVAILABLE],
    ['ECONNRESET', Code.UNAVAILABLE],
    ['08006', Code.UNAVAILABLE],
    ['08001', Code.UNAVAILABLE],
    ['57P01', Code.UNAVAILABLE],
    ['53300', Code.UNAVAILABLE],
    ['22P05', Code.INVALID_ARGUMENT],
    ['22021', Code.INVALID_ARGUMENT],
    ['22003', Code.INVALID_ARGUMENT],
    ['54000', Code.INVALID_ARGUMENT],
  ])('maps %s to %s, keeping the cause', (code, expected) => {
    const error = driverError(code);
    const mapped = mapDriverError(error);
    expect(mapped).toBeInstanceOf(GatewayError);
    expect(mapped).toMatchObject({ code: expected, cause: error });
  });

  it('maps a terminated connection without a code to UNAVAILABLE', () => {
    expect(mapDriverError(new Error('Connection terminated unexpectedly'))).toMatchObject({ code: Code.UNAVAILABLE });
  });

  it('leaves other errors and GatewayErrors alone', () => {
    const syntax = driverError('42601');
    expect(mapDriverError(syntax)).toBe(syntax);
    const gateway = new GatewayError(Code.NOT_FOUND, 'x');
    expect(mapDriverError(gateway)).toBe(gateway);
  });

  it('recognises retryable conflicts, also once mapped', () => {
    expect(isRetryableConflict(driverError('40001'))).toBe(true);
    expect(isRetryableConflict(mapDriverError(driverError('40P01')))).toBe(true);
    expect(isRetryableConflict(driverError('23505'))).toBe(false);
  });
});
