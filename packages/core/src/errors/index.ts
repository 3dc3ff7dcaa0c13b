export * from './code.js';
export * from './gateway-error.js';
export * from './render.js';
export * from './error-code.js';
