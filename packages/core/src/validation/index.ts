export * from './json-depth.js';
export * from './paths.js';
export * from './schema-validator.js';
