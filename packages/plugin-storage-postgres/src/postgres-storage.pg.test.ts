import { describeStorageContract } from '@berth/core/testing';
import { openScenarioStorage } from './test-support.js';

const variant = process.env.DATABASE_URL ? 'postgres (DATABASE_URL)' : 'postgres (embedded PGlite)';

describeStorageContract(variant, async () => {
  const { storage, close } = await openScenarioStorage();
  return { storage, cleanup: close };
});
