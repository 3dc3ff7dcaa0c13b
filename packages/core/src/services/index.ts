import './core-bindings.js';
export * from './core-services.js';
export * from './bootstrap.js';
export * from './serving-bindings.js';
