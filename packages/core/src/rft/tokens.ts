import { createToken } from '../kernel/token.js';
import type { RftJobRunner } from './rft-runner.js';

/** The reinforcement fine-tuning jobs' queue handler, to which the HTTP transport attaches its inference client. */
export const rftJobRunnerToken = createToken<RftJobRunner>('RftJobRunner', { providedBy: 'core' });
