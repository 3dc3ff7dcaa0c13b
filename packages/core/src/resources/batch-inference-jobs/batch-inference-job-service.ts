import { crudService } from '../common/crud-service.js';
import { batchInferenceJobDefinition } from './batch-inference-job-definition.js';

/**
 * Batch inference jobs: run a model over an input dataset into an output dataset. Create, get, list
 * and delete, as the definition makes them; a job is never edited (no update in the API).
 *
 * Create makes a job in JOB_STATE_CREATING (rules: `applyBatchInferenceJobCreateRules`) and throws
 * PERMISSION_DENIED, INVALID_ARGUMENT (schema, missing or dangling references, another account),
 * FAILED_PRECONDITION (continuing a running job), ALREADY_EXISTS. Delete removes the job record in any
 * state (see the state machine).
 */
export class BatchInferenceJobService extends crudService(batchInferenceJobDefinition, ['create', 'get', 'list', 'delete']) {}
