import { MemoryStorage, describeApiKeyManagerContract, describeAuthenticatorContract } from '@berth/core/testing';
import { contractStaleBoundMs, issueApiKey, sharedStorage, twoApiKeyInstances } from './test-fixtures.js';

/** The contract suites on the in-memory store, two gateways sharing it (PostgreSQL: contract.pg.test.ts). */
const onSharedMemory = () => {
  const storage = new MemoryStorage();
  return twoApiKeyInstances(() => sharedStorage(storage));
};

describeAuthenticatorContract('API keys on shared memory', onSharedMemory, { issue: issueApiKey, staleBoundMs: contractStaleBoundMs });
describeApiKeyManagerContract('API keys on shared memory', onSharedMemory);
