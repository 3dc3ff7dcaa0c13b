import { describeStorageContract } from '../testing/storage-contract.js';
import { MemoryStorage } from './memory-storage.js';

describeStorageContract('memory', async () => ({ storage: new MemoryStorage(), cleanup: async () => {} }), { blobs: { holdsObjectsInProcess: true } });
