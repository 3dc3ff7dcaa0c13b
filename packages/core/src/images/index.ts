export { textToImageAspectRatios, type ImageSize } from './aspect-ratio.js';
export * from './image-api.js';
export * from './image-models.js';
export { imageRequestsCollection, taskNotFound, type ImageRequestRecord, type ImageRequestStatus } from './image-request-record.js';
export * from './image-service.js';
export * from './reference-safety-checker.js';
export * from './image-settings.js';
