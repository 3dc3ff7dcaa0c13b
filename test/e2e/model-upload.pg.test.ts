import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';
import { postgresTestStorage, type PostgresTestStorage } from './postgres.js';
import { runAnnouncementRace, runBadInputs, runHappyPath } from './model-upload-scenario.js';

/** The model upload scenario of the memory e2e on PostgreSQL storage (DATABASE_URL, or embedded PGlite). */
let h: Harness | undefined;
let storage: PostgresTestStorage | undefined;

beforeAll(async () => {
  storage = await postgresTestStorage('models');
  h = await startHarness({ plugins: [storage.plugin, apiKeyAuth({ cacheTtlMs: 0 })], config: { maxModelFileBytes: 1024 * 1024, maxModelBytes: 2 * 1024 * 1024 } });
}, 60_000);
afterAll(async () => {
  await h?.close();
  await storage?.cleanup();
});

describe('model files over HTTP (PostgreSQL)', () => {
  it('uploads a checkpoint and an add-on, validates them to READY and downloads the same bytes', async () => {
    await runHappyPath(h!, 'pg');
  }, 60_000);

  it('answers each bad input with a 400 naming the file and leaves nothing READY', async () => {
    await runBadInputs(h!, 'pg');
  }, 60_000);

  it('keeps every one of concurrent announcements of one model', async () => {
    await runAnnouncementRace(h!, 'pg');
  }, 60_000);
});
