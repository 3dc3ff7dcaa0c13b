import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code, type CheckedFilter, type FieldDeclaration, type Storage } from '@berth/core';
import { openTestDatabase, startOnFreshSchema, type TestDatabase } from './test-support.js';

/**
 * Regression (issue 9, defect #4): PostgreSQL cannot store NUL in text or jsonb and answered 500. The
 * adapter now refuses such values with INVALID_ARGUMENT (the validation layer refuses them earlier; this
 * is the defence in depth behind it).
 */
const ctx = { requestId: 'nul' };
const displayName: FieldDeclaration = { path: ['displayName'], type: 'string' };
const nameField: FieldDeclaration = { path: ['name'], type: 'string' };
let database: TestDatabase;
let started: { storage: Storage; cleanup(): Promise<void> };

beforeAll(async () => {
  database = await openTestDatabase();
  started = await startOnFreshSchema(database);
});
afterAll(async () => {
  await started.cleanup();
  await database.close();
});

const invalid = { code: Code.INVALID_ARGUMENT };

describe('NUL characters on PostgreSQL', () => {
  it('refuses them in a stored string with INVALID_ARGUMENT, in and out of a transaction', async () => {
    const { storage } = started;
    await expect(storage.resources.create(ctx, 'accounts/a/models/nul1', { displayName: 'a\u0000b' })).rejects.toMatchObject(invalid);
    await expect(storage.transaction(ctx, (tx) => tx.resources.create(ctx, 'accounts/a/models/nul2', { displayName: 'a\u0000b' }))).rejects.toMatchObject(invalid);
    const stored = await storage.resources.create(ctx, 'accounts/a/models/nul3', { displayName: 'ok' });
    await expect(storage.resources.update(ctx, stored.name, { displayName: '\u0000' }, stored.etag)).rejects.toMatchObject(invalid);
    await expect(storage.resources.create(ctx, 'accounts/a/models/nul4', { ['k\u0000']: 1 })).rejects.toMatchObject(invalid);
  });

  it('refuses them in a name, a key and a filter value with INVALID_ARGUMENT', async () => {
    const { storage } = started;
    await expect(storage.resources.get(ctx, 'accounts/a/models/x\u0000')).rejects.toMatchObject(invalid);
    await expect(storage.kv.set(ctx, 'k\u0000', 1)).rejects.toMatchObject(invalid);
    await expect(storage.kv.set(ctx, 'k', 'v\u0000')).rejects.toMatchObject(invalid);
    // Built directly: the filter parser may refuse NUL itself, and this tests the adapter.
    const filter: CheckedFilter = { kind: 'compare', field: { declaration: displayName, position: 0 }, operator: '=', value: { type: 'string', value: 'a\u0000b', wildcard: false } };
    await expect(
      storage.resources.list(ctx, { parent: 'accounts/a', collection: 'models', filter, orderBy: [{ declaration: nameField, descending: false }], pageSize: 10 }),
    ).rejects.toMatchObject(invalid);
  });
});
