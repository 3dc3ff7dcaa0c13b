import { describeQueueWorkerScenarios } from '@berth/core/testing';
import { openTestDatabase, startOnFreshSchema } from './test-support.js';

/**
 * Core's queue-worker scenarios on PostgreSQL: DATABASE_URL when set, else an embedded PGlite; a fresh
 * schema per test, dropped after.
 */
describeQueueWorkerScenarios(process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'PostgreSQL (embedded PGlite)', async () => {
  const database = await openTestDatabase();
  const started = await startOnFreshSchema(database);
  return {
    storage: started.storage,
    async close() {
      await started.cleanup();
      await database.close();
    },
  };
});
