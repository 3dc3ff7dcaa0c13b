export * from './tokens.js';
export * from './core-services.js';
export * from './core-module.js';
export * from './create-gateway.js';
export * from './bootstrap.js';
export * from './serving-bindings.js';
export * from './serving-options-plugin.js';
export * from './queue-workers-plugin.js';
