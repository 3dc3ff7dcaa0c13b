import type { OpenAPIV3_1 } from 'openapi-types';
import type { RouteSpec } from '../route-spec.js';

/** Version of the control-plane description (spec, Versioning 1). */
export const apiDescriptionVersion = '4.259.0';

const controlPlaneError: OpenAPIV3_1.SchemaObject = {
  type: 'object',
  description: 'Error of a control-plane call: google.rpc code number, message, details.',
  properties: { code: { type: 'integer' }, message: { type: 'string' }, details: { type: 'array', items: {} } },
  required: ['code', 'message', 'details'],
};

const inferenceError: OpenAPIV3_1.SchemaObject = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { message: { type: 'string' }, type: { type: 'string' }, param: { type: ['string', 'null'] }, code: { type: ['string', 'null'] } },
    },
  },
};

/** The image endpoints' failures (spec, Errors rule 1). */
const imageError: OpenAPIV3_1.SchemaObject = { type: 'object', properties: { error_message: { type: 'string' } }, required: ['error_message'] };

/** JSON-Schema keywords OpenAPI 3.1 does not need (and `as const` tuples) are copied as plain JSON. */
function asSchema(schema: unknown): OpenAPIV3_1.SchemaObject {
  return JSON.parse(JSON.stringify(schema)) as OpenAPIV3_1.SchemaObject;
}

function pathParameters(path: string): OpenAPIV3_1.ParameterObject[] {
  return [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => ({
    name: m[1]!,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
}

/**
 * The OpenAPI 3.1 document of every route in the table but the signed URLs (typed with openapi-types).
 * Custom methods keep their `:verb` suffix in the path, as Google-style APIs document them.
 */
/** The request body of a route taking one file as multipart/form-data. */
function multipartFileBody(field: string): OpenAPIV3_1.RequestBodyObject {
  return {
    required: true,
    content: { 'multipart/form-data': { schema: { type: 'object', properties: { [field]: { type: 'string', format: 'binary' } }, required: [field] } } },
  };
}

export function buildOpenApiDocument(routes: readonly RouteSpec[]): OpenAPIV3_1.Document {
  const paths: OpenAPIV3_1.PathsObject = {};
  for (const route of routes) {
    // Signed URLs are handed out by the API's answers, not called from the document.
    if (route.signedUrl) continue;
    const item: OpenAPIV3_1.PathItemObject = paths[route.path] ?? {};
    const errorRef = route.path.startsWith('/inference/v1/workflows/')
      ? '#/components/schemas/ImageError'
      : route.path.startsWith('/inference/') ? '#/components/schemas/InferenceError' : '#/components/schemas/ControlPlaneError';
    const binary = Object.fromEntries((route.binaryMediaTypes ?? []).map((type) => [type, { schema: { type: 'string', format: 'binary' } }]));
    const errorResponse = (description: string): OpenAPIV3_1.ResponseObject => ({
      description,
      content: { 'application/json': { schema: { $ref: errorRef } } },
    });
    const operation: OpenAPIV3_1.OperationObject = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      parameters: [
        ...pathParameters(route.path),
        ...(route.query ?? []).map((q): OpenAPIV3_1.ParameterObject => ({
          name: q.name,
          in: 'query',
          required: false,
          description: q.description,
          schema: { type: q.type },
        })),
      ],
      ...(route.requestBody
        ? { requestBody: { required: route.method !== 'DELETE', content: { 'application/json': { schema: asSchema(route.requestBody) } } } }
        : {}),
      ...(route.multipartFile ? { requestBody: multipartFileBody(route.multipartFile.field) } : {}),
      responses: {
        '200': { description: 'OK', content: { 'application/json': { schema: asSchema(route.response) }, ...binary } },
        '400': errorResponse('Invalid argument or failed precondition'),
        '401': errorResponse('Missing or invalid credential'),
        '403': errorResponse('Permission denied'),
        '404': errorResponse('Not found'),
        '409': errorResponse('Already exists or aborted'),
      },
      security: [{ bearerAuth: [] }],
    };
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    // openapi-types declares 3.1 path items through 3.0 operation types; the object is a 3.1 operation.
    (item as Record<string, OpenAPIV3_1.OperationObject>)[method] = operation;
    paths[route.path] = item;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Berth gateway API',
      version: apiDescriptionVersion,
      description: 'Control plane (`/v1/accounts/...`) and inference (`/inference/v1/...`) of a Berth model-hosting gateway.',
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' } },
      schemas: { ControlPlaneError: controlPlaneError, InferenceError: inferenceError, ImageError: imageError },
    },
  };
}
