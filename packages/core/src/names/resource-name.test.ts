import { describe, expect, it } from 'vitest';
import { accountName, assertValidId, formatResourceName, isValidId, parseResourceName } from './resource-name.js';

describe('resource ids: 1–63 lowercase letters, digits and hyphens', () => {
  it.each(['a', '0', 'abc', 'my-model', 'a1-b2-c3', 'x'.repeat(63), `a${'-'.repeat(61)}b`, '123'])('accepts %j', (id) => {
    expect(isValidId(id)).toBe(true);
    expect(assertValidId(id, 'modelId')).toBe(id);
  });

  it.each([
    ['empty', ''],
    ['64 characters', 'x'.repeat(64)],
    ['upper case', 'MyModel'],
    ['underscore', 'my_model'],
    ['dot', 'my.model'],
    ['slash', 'a/b'],
    ['space', 'a b'],
    ['leading hyphen', '-abc'],
    ['trailing hyphen', 'abc-'],
    ['lone hyphen', '-'],
    ['non-ASCII letter', 'modèle'],
    ['trailing newline', 'abc\n'],
  ])('rejects %s', (_label, id) => {
    expect(isValidId(id)).toBe(false);
    expect(() => assertValidId(id, 'modelId')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', field: 'modelId' }));
  });

  it('names the field and the rule in the message, and truncates long ids', () => {
    const long = 'A'.repeat(500);
    try {
      assertValidId(long, 'deploymentId');
      expect.unreachable();
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain('deploymentId');
      expect(message).toContain('1–63 lowercase letters, digits and hyphens');
      expect(message.length).toBeLessThan(300);
    }
  });
});

describe('resource names', () => {
  it('formats names', () => {
    expect(accountName('acme')).toBe('accounts/acme');
    expect(formatResourceName('acme', 'models', 'm1')).toBe('accounts/acme/models/m1');
  });

  it('parses accounts/{account}/{collection}/{id}', () => {
    expect(parseResourceName('accounts/acme/models/m1')).toEqual({ accountId: 'acme', collection: 'models', id: 'm1' });
    expect(parseResourceName('accounts/acme/models/m1', 'models')).toEqual({ accountId: 'acme', collection: 'models', id: 'm1' });
  });

  it.each([
    'accounts/acme/models',
    'accounts/acme/models/m1/extra',
    'account/acme/models/m1',
    'accounts/ACME/models/m1',
    'accounts/acme/models/M1',
    'accounts//models/m1',
    'accounts/acme//m1',
    'accounts/acme',
    'accounts/',
    'accounts/acme/models/',
    'models/m1',
    '',
  ])('rejects %j naming the field', (name) => {
    expect(() => parseResourceName(name, undefined, 'baseModel')).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', field: 'baseModel', reason: 'INVALID_RESOURCE_NAME' }),
    );
  });

  it('rejects a name of another collection', () => {
    expect(() => parseResourceName('accounts/acme/datasets/d1', 'models', 'peftDetails.baseModel')).toThrow(/accounts\/\{account_id\}\/models\/\{id\}/);
  });
});
