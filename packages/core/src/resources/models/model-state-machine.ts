import { defineStateMachine } from '../common/state-machine.js';
import type { modelStateValues } from './model-schema.js';

/**
 * Berth registers model metadata and resolves weights at deploy time (hubFiles, modelHubUrl), so a
 * registered model is READY at once. UPLOADING is for models whose files arrive asynchronously: a model
 * *created for upload* (`createdForUpload`: a HUB checkpoint stating no parameterCount nor modelHubUrl,
 * an add-on of an uploaded checkpoint) starts UPLOADING; the first `:getUploadEndpoint` on a READY HUB
 * checkpoint or PEFT add-on that holds no uploaded files moves it READY → UPLOADING (`ModelFileService`).
 * Only a successful `:validateUpload` moves it to READY; a failed validation leaves it UPLOADING with a
 * `status`. An UPLOADING model cannot be deployed.
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
