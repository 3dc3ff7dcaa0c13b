/**
 * @berth/core — the kernel, resources, errors, listing and ports of the Berth gateway.
 * Knows no HTTP framework, database driver or accelerator vendor: plugins bring those.
 */
import 'reflect-metadata';

export * from './errors/index.js';
export * from './kernel/index.js';
export * from './ports/index.js';
export * from './names/index.js';
export * from './validation/index.js';
export * from './listing/index.js';
export * from './auth/permissions.js';
export * from './api/index.js';
export * from './resources/index.js';
export * from './services/index.js';
export * from './engine/index.js';
export * from './runtime/index.js';
export * from './serving/index.js';
export * from './workers/index.js';
export * from './responses/index.js';
export * from './batch/index.js';
export * from './rft/index.js';
export * from './outbound/index.js';
export * from './images/index.js';
export * from './blobs/index.js';
export * from './evaluators/index.js';
export * from './trainers/index.js';
export * from './training-files/index.js';
export * from './tracing/index.js';
