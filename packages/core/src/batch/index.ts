export { BatchInferenceRunner, type BatchInferenceOptions } from './batch-runner.js';
export { parseBatchRow, jobDefaults, type BatchInferenceParameters, type BatchRow } from './batch-rows.js';
export { batchInferenceRunnerToken } from './tokens.js';
export { BatchCapacity, temporaryDeploymentRecords, type CapacityJob, type CapacityNeeds, type JobCapacity, type ResolveModel, type TemporaryDeploymentsRecord } from './batch-capacity.js';
