import { defineStateMachine } from '../common/state-machine.js';
import type { modelStateValues } from './model-schema.js';

/**
 * Berth registers model metadata and resolves weights at deploy time (hubFiles, modelHubUrl), so a
 * model created through the API is READY at once. UPLOADING is for models whose files arrive
 * asynchronously: the first `:getUploadEndpoint` on a READY HUB checkpoint or PEFT add-on that holds no
 * uploaded files moves it READY → UPLOADING (`ModelFileService`), and `:validateUpload` moves it back to
 * READY once its files pass the checks; a failed validation leaves it UPLOADING with a `status`.
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
