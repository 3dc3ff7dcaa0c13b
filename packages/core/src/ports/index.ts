/**
 * Every port of core in one place: what plugins implement (storage, authenticator, API keys, accelerator
 * runtimes and their provisioners) and what core exposes to transports and plugins (serving directory, advisor,
 * the guarded outbound HTTP client).
 */
export * from './json.js';
export * from './logger.js';
export * from './clock.js';
export * from './id-generator.js';
export * from './storage.js';
export * from './authenticator.js';
export * from './api-keys.js';
export * from './accelerator-runtime.js';
export * from './provisioner.js';
export * from './model-files.js';
export * from './serving-directory.js';
export * from './serving-advisor.js';
export * from './egress-http.js';
export * from './webhook-outbox.js';
export * from './image-engine.js';
export * from './evaluator-runner.js';
export * from './trainer.js';
export * from './telemetry.js';
