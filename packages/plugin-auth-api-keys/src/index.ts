export * from './api-key-auth.js';
export * from './api-key-api.js';
export * from './api-key-service.js';
export * from './api-key-format.js';
export * from './identity-cache.js';
export * from './principal-change-feed.js';
