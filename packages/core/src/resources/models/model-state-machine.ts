import { defineStateMachine } from '../common/state-machine.js';
import type { modelStateValues } from './model-schema.js';

/**
 * Berth registers model metadata and resolves weights at deploy time (hubFiles, modelHubUrl), so a
 * model created through the API is READY at once. UPLOADING is for models whose files arrive
 * asynchronously (imports); READY → UPLOADING is a re-upload.
 */
export const modelStateMachine = defineStateMachine<(typeof modelStateValues)[number]>({
  resource: 'model',
  initial: 'READY',
  transitions: {
    STATE_UNSPECIFIED: ['UPLOADING', 'READY'],
    UPLOADING: ['READY'],
    READY: ['UPLOADING'],
  },
});
