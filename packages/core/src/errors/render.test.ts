import { describe, expect, it } from 'vitest';
import { allCodes, codeNumberOf, httpStatusOf } from './code.js';
import {
  GatewayError, invalidArgument, isGatewayError, notFound, permissionDenied, toGatewayError, unauthenticated,
} from './gateway-error.js';
import { renderControlPlaneError, renderImageError, renderInferenceError } from './render.js';

describe('renderControlPlaneError', () => {
  it.each(allCodes)('renders %s as {code: <number>, message, details: []} with its HTTP status', (code) => {
    const rendered = renderControlPlaneError(new GatewayError(code, `something about ${code}`));
    expect(rendered.status).toBe(httpStatusOf(code));
    expect(rendered.body).toEqual({ code: codeNumberOf(code), message: `something about ${code}`, details: [] });
    expect(typeof rendered.body.code).toBe('number');
  });

  it('renders NOT_FOUND as 404 with code 5 and PERMISSION_DENIED as 403 with code 7', () => {
    expect(renderControlPlaneError(notFound('accounts/a/models/m'))).toEqual({
      status: 404,
      body: { code: 5, message: 'accounts/a/models/m not found', details: [] },
    });
    expect(renderControlPlaneError(permissionDenied('no'))).toEqual({ status: 403, body: { code: 7, message: 'no', details: [] } });
  });

  it('carries details and does not share the error’s array', () => {
    const error = invalidArgument('bad', { details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', field: 'x' }] });
    const rendered = renderControlPlaneError(error);
    expect(rendered.body.details).toEqual([{ '@type': 'type.googleapis.com/google.rpc.BadRequest', field: 'x' }]);
    rendered.body.details.push('extra');
    expect(error.details).toHaveLength(1);
  });

  it('serialises as plain JSON with exactly three keys', () => {
    const json = JSON.parse(JSON.stringify(renderControlPlaneError(invalidArgument('bad')).body)) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(['code', 'details', 'message']);
  });
});

describe('renderInferenceError', () => {
  it('renders {error: {message, type, param, code}} with the HTTP status of the code', () => {
    const rendered = renderInferenceError(invalidArgument('temperature must be at most 2', { field: 'temperature', reason: 'OUT_OF_BOUNDS' }));
    expect(rendered).toEqual({
      status: 400,
      body: { error: { message: 'temperature must be at most 2', type: 'invalid_request_error', param: 'temperature', code: 'out_of_bounds' } },
    });
  });

  it('uses null param and the lower-cased code when no field or reason is given', () => {
    expect(renderInferenceError(new GatewayError('UNAVAILABLE', 'try later')).body).toEqual({
      error: { message: 'try later', type: 'server_error', param: null, code: 'unavailable' },
    });
  });

  it.each([
    ['INVALID_ARGUMENT', 'invalid_request_error'],
    ['FAILED_PRECONDITION', 'invalid_request_error'],
    ['OUT_OF_RANGE', 'invalid_request_error'],
    ['NOT_FOUND', 'not_found_error'],
    ['UNAUTHENTICATED', 'authentication_error'],
    ['PERMISSION_DENIED', 'permission_error'],
    ['RESOURCE_EXHAUSTED', 'rate_limit_error'],
    ['ALREADY_EXISTS', 'conflict_error'],
    ['ABORTED', 'conflict_error'],
    ['INTERNAL', 'server_error'],
    ['UNKNOWN', 'server_error'],
  ] as const)('maps %s to type %s', (code, type) => {
    const rendered = renderInferenceError(new GatewayError(code, 'm'));
    expect(rendered.body.error.type).toBe(type);
    expect(rendered.status).toBe(httpStatusOf(code));
  });

  it('keeps every key present even when empty', () => {
    expect(Object.keys(renderInferenceError(unauthenticated('no key')).body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(renderInferenceError(unauthenticated('no key')).status).toBe(401);
  });
});

describe('renderImageError', () => {
  it.each(allCodes.filter((c) => c !== 'UNAUTHENTICATED' && c !== 'PERMISSION_DENIED' && c !== 'OK'))(
    'renders %s as HTTP 400 with {error_message}',
    (code) => {
      expect(renderImageError(new GatewayError(code, 'image failed'))).toEqual({ status: 400, body: { error_message: 'image failed' } });
    },
  );

  it('keeps 401 and 403 for authentication and permission failures', () => {
    expect(renderImageError(unauthenticated('missing key'))).toEqual({ status: 401, body: { error_message: 'missing key' } });
    expect(renderImageError(permissionDenied('denied'))).toEqual({ status: 403, body: { error_message: 'denied' } });
  });
});

describe('GatewayError', () => {
  it('turns unknown errors into INTERNAL without leaking their text', () => {
    const original = new Error('password=hunter2 at db.internal');
    const converted = toGatewayError(original);
    expect(converted.code).toBe('INTERNAL');
    expect(converted.message).toBe('internal error');
    expect(converted.cause).toBe(original);
    expect(renderControlPlaneError(converted).body.message).not.toContain('hunter2');
  });

  it('passes GatewayErrors through and recognises them', () => {
    const error = notFound('x');
    expect(toGatewayError(error)).toBe(error);
    expect(isGatewayError(error)).toBe(true);
    expect(isGatewayError(new Error('x'))).toBe(false);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('GatewayError');
  });
});
