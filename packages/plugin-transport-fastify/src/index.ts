export * from './http-server.js';
export * from './fastify-transport.js';
export * from './route-spec.js';
export * from './query.js';
export * from './errors.js';
export * from './routes/resource-routes.js';
export * from './openapi/openapi-document.js';
export * from './openapi/docs-page.js';
