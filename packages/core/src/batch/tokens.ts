import { createToken } from '../kernel/token.js';
import type { BatchInferenceRunner } from './batch-runner.js';

/** The batch inference jobs' queue handler, to which the HTTP transport attaches its inference client. */
export const batchInferenceRunnerToken = createToken<BatchInferenceRunner>('BatchInferenceRunner', { providedBy: 'core' });
