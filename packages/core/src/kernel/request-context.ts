/** Moved to the contract layer; re-exported here so existing imports keep working. */
export * from '../contracts/request-context.js';
