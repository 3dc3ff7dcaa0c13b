import { describeStorageContract } from '@berth/core/testing';
import { openTestDatabase, startOnFreshSchema } from './test-support.js';

const variant = process.env.DATABASE_URL ? 'postgres (DATABASE_URL)' : 'postgres (embedded PGlite)';

describeStorageContract(variant, async () => {
  const database = await openTestDatabase();
  const started = await startOnFreshSchema(database);
  return {
    storage: started.storage,
    async cleanup() {
      await started.cleanup();
      await database.close();
    },
  };
});
