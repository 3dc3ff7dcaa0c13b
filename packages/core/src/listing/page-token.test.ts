import { describe, expect, it } from 'vitest';
import { decodePageToken, encodePageToken } from './page-token.js';
import { invalid } from './test-fixtures.js';

const secret = 'test-secret';
const params = { filter: 'state = READY', orderBy: 'create_time desc', 'param.showDeleted': 'true' };
const position = ['2024-05-01T12:00:00.000Z', '42', null, 1.5, true, 'accounts/a/deployments/d1'];

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const body = (token: string): { v: number; p: unknown[]; c: string } => JSON.parse(Buffer.from(token, 'base64url').toString()) as { v: number; p: unknown[]; c: string };

describe('page tokens', () => {
  it('round-trips a position', () => {
    const token = encodePageToken(position, params, secret);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodePageToken(token, params, secret)).toEqual(position);
    expect(decodePageToken(encodePageToken(position, params, new TextEncoder().encode('k')), params, new TextEncoder().encode('k'))).toEqual(position);
  });

  it('does not depend on parameter order; undefined and empty mean not given', () => {
    const token = encodePageToken(position, { filter: 'a', orderBy: undefined, x: '' }, secret);
    expect(decodePageToken(token, { filter: 'a' }, secret)).toEqual(position);
    const reordered = encodePageToken(position, { b: '2', a: '1' }, secret);
    expect(decodePageToken(reordered, { a: '1', b: '2' }, secret)).toEqual(position);
  });

  it('rejects a token used with any changed parameter', () => {
    const token = encodePageToken(position, params, secret);
    for (const changed of [
      { ...params, filter: 'state = FAILED' },
      { ...params, orderBy: 'create_time' },
      { ...params, 'param.showDeleted': undefined },
      { ...params, 'param.readMask': 'name' },
    ]) {
      const error = invalid(() => decodePageToken(token, changed, secret));
      expect(error.message).toContain('page token does not match the request');
      expect(error.field).toBe('pageToken');
    }
  });

  it('rejects a token signed with another secret or a forged position', () => {
    const token = encodePageToken(position, params, secret);
    expect(invalid(() => decodePageToken(token, params, 'other')).message).toContain('does not match');
    const forged = b64({ ...body(token), p: ['2000-01-01T00:00:00.000Z', '0', null, 0, false, 'x'] });
    expect(invalid(() => decodePageToken(forged, params, secret)).message).toContain('does not match');
  });

  it('rejects garbled, truncated, and wrong-version tokens as invalid', () => {
    const token = encodePageToken(position, params, secret);
    const cases = [
      'not base64!',
      token.slice(0, token.length - 5),
      token.slice(0, 10),
      `${token}x`,
      b64({ ...body(token), v: 2 }),
      b64({ ...body(token), c: 'short' }),
      b64({ ...body(token), p: 'x' }),
      b64({ ...body(token), extra: 1 }),
      b64([1, 2]),
      b64(null),
      b64('string'),
      'x'.repeat(20000),
      '',
    ];
    for (const garbled of cases) {
      const error = invalid(() => decodePageToken(garbled, params, secret));
      expect(error.message).toMatch(/invalid page token|does not match/);
    }
    expect(invalid(() => decodePageToken(b64({ ...body(token), v: 2 }), params, secret)).message).toBe('invalid page token');
  });

  it('never throws anything but INVALID_ARGUMENT on random input', () => {
    const token = encodePageToken(position, params, secret);
    for (let i = 0; i < 500; i++) {
      const chars = token.split('');
      const at = (i * 7919) % chars.length;
      chars[at] = 'ABCxyz019-_'[i % 11] as string;
      try {
        decodePageToken(chars.join(''), params, secret);
      } catch {
        invalid(() => decodePageToken(chars.join(''), params, secret));
      }
    }
  });
});
