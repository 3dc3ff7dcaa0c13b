export * from './token.js';
export * from './tokens.js';
export * from './config.js';
export * from './container.js';
export * from './plugin.js';
export * from './request-context.js';
export * from './gateway.js';
