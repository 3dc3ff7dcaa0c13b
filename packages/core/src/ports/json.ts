/** Moved to the contract layer; re-exported here so existing imports keep working. */
export type * from '../contracts/json.js';
