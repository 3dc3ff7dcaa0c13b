export * from './acme-catalogue.js';
export * from './acme-runtime.js';
