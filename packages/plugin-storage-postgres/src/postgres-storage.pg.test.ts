import { describeStorageContract } from '@berth/core/testing';
import { openScenarioStorage } from './test-support.js';

const variant = process.env.DATABASE_URL ? 'postgres (DATABASE_URL)' : 'postgres (embedded PGlite)';

describeStorageContract(variant, async () => {
  const { storage, close } = await openScenarioStorage();
  return { storage, cleanup: close };
  // Embedded PGlite keeps the database in this process's memory: the bounded-memory checks need a server.
}, { blobs: { holdsObjectsInProcess: !process.env.DATABASE_URL } });
