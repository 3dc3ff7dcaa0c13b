export * from './resource-name.js';
