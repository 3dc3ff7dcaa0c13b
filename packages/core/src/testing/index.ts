/**
 * @berth/core/testing — what plugin authors and hosts use in tests: the contract suites every adapter
 * runs unchanged, fakes, and a ready gateway.
 */
export * from './storage-contract.js';
export * from './blob-store-contract.js';
export * from './test-gateway.js';
export * from './runtime-contract.js';
export * from './assertions.js';
export * from './authenticator-contract.js';
export * from './api-key-manager-contract.js';
export { MemoryStorage, memoryStorage, type MemoryStorageOptions } from '../storage-memory/index.js';
export * from './test-runtime.js';
export { describeQueueWorkerScenarios, type ScenarioStorage } from './queue-worker-scenarios.js';
export * from './provisioner-contract.js';
export * from './open-responses-conformance.js';
export { describeBackgroundResponseScenarios } from './background-response-scenarios.js';
export * from './model-file-source.js';
export { buildSafetensors } from './safetensors-builder.js';
