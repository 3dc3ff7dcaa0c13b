export * from './tokenizer.js';
export * from './generate.js';
export * from './vocabulary.js';
export * from './reference-lora.js';
export * from './reference-engine.js';
export { adapterDigest, type LoadedAdapter } from './reference-adapters.js';
export { referenceImageEngine, type ReferenceImageEngineOptions } from './reference-image-engine.js';
export * from './upstream-image-engine.js';
