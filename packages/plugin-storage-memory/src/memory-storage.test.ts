import { describeStorageContract } from '@berth/core/testing';
import { MemoryStorage } from './memory-storage.js';

describeStorageContract('memory', async () => ({ storage: new MemoryStorage(), cleanup: async () => {} }));
