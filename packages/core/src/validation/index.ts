export * from './json-depth.js';
export * from './nul.js';
export * from './paths.js';
export * from './schema-validator.js';
