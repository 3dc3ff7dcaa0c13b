export * from './serving-directory.js';
