export * from './tokenizer.js';
export * from './generate.js';
export * from './reference-engine.js';
