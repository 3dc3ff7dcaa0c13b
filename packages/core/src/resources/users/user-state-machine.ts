import { defineStateMachine } from '../common/state-machine.js';
import type { UserState } from './user-schema.js';

/**
 * Creating, updating and deleting a user are synchronous in Berth (a user is a record; credentials
 * are API keys issued separately), so a created user is stored READY, an update leaves it READY and a
 * delete removes it in the same call. CREATING, UPDATING and DELETING are in the table for
 * asynchronous flows (e.g. provisioning through an identity provider); STATE_UNSPECIFIED is the
 * enum's zero value only.
 */
export const userStateMachine = defineStateMachine<UserState>({
  resource: 'user',
  initial: 'READY',
  transitions: {
    STATE_UNSPECIFIED: ['CREATING', 'READY'],
    CREATING: ['READY', 'DELETING'],
    READY: ['UPDATING', 'DELETING'],
    UPDATING: ['READY', 'DELETING'],
    DELETING: [],
  },
});
