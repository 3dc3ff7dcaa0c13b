export * from './json.js';
export * from './logger.js';
export * from './clock.js';
export * from './id-generator.js';
export * from './storage.js';
export * from './authenticator.js';
export * from './api-keys.js';
