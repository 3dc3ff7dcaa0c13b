import { defineStateMachine } from '../common/state-machine.js';
import type { DatasetState } from './dataset-schema.js';

/**
 * A dataset is UPLOADING from creation until its files are validated (`markReady`, called by the
 * upload flow), then READY. It is READY at once when its examples already exist elsewhere: an
 * `externalUrl`, or a derivation from a READY source dataset. A READY dataset's contents never change
 * (jobs that trained or ran on it stay reproducible), so READY is terminal; new contents make a new
 * dataset. STATE_UNSPECIFIED is only the enum's zero value (records written before states existed).
 */
export const datasetStateMachine = defineStateMachine<DatasetState>({
  resource: 'dataset',
  initial: 'UPLOADING',
  transitions: {
    STATE_UNSPECIFIED: ['UPLOADING', 'READY'],
    UPLOADING: ['READY'],
    READY: [],
  },
});
