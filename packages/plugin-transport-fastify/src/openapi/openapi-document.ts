import type { OpenAPIV3_1 } from 'openapi-types';
import { Code, GatewayError, renderControlPlaneError, renderImageError, renderInferenceError } from '@berth/core';
import type { RouteSpec } from '../route-spec.js';
import { surfaceOf, type Surface } from '../errors.js';
import { SchemaComponents } from './schema-components.js';
import { exampleOf } from './schema-example.js';

/** Version of the control-plane description (spec, Versioning 1). */
export const apiDescriptionVersion = '4.259.0';

/** The document's `info.title`. */
export const apiTitle = 'Berth gateway API';

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

function pathParameters(path: string): OpenAPIV3_1.ParameterObject[] {
  return [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => ({
    name: m[1]!,
    in: 'path',
    required: true,
    schema: { type: 'string' },
    example: m[1] === 'account_id' ? 'my-account' : 'example',
  }));
}

/** The request body of a route taking one file as multipart/form-data. */
function multipartFileSchema(field: string): OpenAPIV3_1.SchemaObject {
  return { type: 'object', properties: { [field]: { type: 'string', format: 'binary' } }, required: [field] };
}

/** An error status an operation can answer: its code, what it means, and an example message. */
interface ErrorStatus {
  readonly code: Code;
  readonly description: string;
  readonly message: string;
  readonly reason?: string;
}

const errorStatuses: Readonly<Record<number, ErrorStatus>> = {
  400: { code: Code.INVALID_ARGUMENT, description: 'Invalid argument or failed precondition', message: 'field "displayName" must be of type string', reason: 'INVALID_TYPE' },
  401: { code: Code.UNAUTHENTICATED, description: 'Missing or invalid API key', message: 'missing or invalid API key', reason: 'UNAUTHENTICATED' },
  403: { code: Code.PERMISSION_DENIED, description: 'The caller may not do this in the account', message: 'permission denied', reason: 'PERMISSION_DENIED' },
  404: { code: Code.NOT_FOUND, description: 'The resource (or the model) does not exist', message: 'accounts/my-account/models/example not found', reason: 'NOT_FOUND' },
  409: { code: Code.ALREADY_EXISTS, description: 'Already exists (create), or the etag precondition failed (ABORTED)', message: 'accounts/my-account/models/example already exists', reason: 'ALREADY_EXISTS' },
  413: { code: Code.INVALID_ARGUMENT, description: 'The request body is larger than the gateway accepts', message: 'request body is too large', reason: 'BODY_TOO_LARGE' },
  500: { code: Code.INTERNAL, description: 'Internal error (details are in the gateway log)', message: 'internal error' },
  503: { code: Code.UNAVAILABLE, description: 'No replica can serve the model now; retry with backoff', message: 'the model replica is unreachable; retry with backoff', reason: 'UPSTREAM_UNAVAILABLE' },
  504: { code: Code.DEADLINE_EXCEEDED, description: 'The model replica did not answer in time', message: 'the model replica did not answer within 60000 ms', reason: 'UPSTREAM_TIMEOUT' },
};

/** The error body of `status` on `surface`, rendered by the same functions that render real failures. */
function errorExample(surface: Surface, status: number): unknown {
  const { code, message, reason } = errorStatuses[status]!;
  const error = new GatewayError(code, message, reason === undefined ? {} : { reason });
  if (surface === 'control') return renderControlPlaneError(error).body;
  if (surface === 'inference') return renderInferenceError(error).body;
  return renderImageError(error).body;
}

/**
 * The error statuses an operation can answer. Image workflows answer 400 for every failure but
 * authentication (spec, Errors rule 1). Elsewhere: 404 when the path names a resource (or an inference
 * body names a model), 409 on create (ALREADY_EXISTS) and on PATCH/DELETE (the etag precondition, ABORTED),
 * 413 when there is a body, and 503/504 when a model replica serves the call.
 */
export function errorStatusesOf(route: RouteSpec): number[] {
  const surface = surfaceOf(route.path);
  if (surface === 'image') return [400, 401, 403];
  const hasBody = route.requestBody !== undefined || route.multipartFile !== undefined;
  const namesResource = pathParameters(route.path).some((p) => p.name !== 'account_id');
  const servedByReplica = surface === 'inference' && route.method === 'POST' && hasBody;
  const create = route.method === 'POST' && /\/[A-Za-z]+$/.test(route.path);
  return [
    400, 401, 403,
    ...(namesResource || servedByReplica ? [404] : []),
    ...(surface === 'control' && (create || route.method === 'PATCH' || route.method === 'DELETE') && !route.path.includes(':') ? [409] : []),
    ...(hasBody ? [413] : []),
    500,
    ...(servedByReplica ? [503, 504] : []),
  ];
}

const errorComponent: Readonly<Record<Surface, string>> = { control: 'ControlPlaneError', inference: 'InferenceError', image: 'ImageError' };

/** `createModel` → `CreateModel` (the fallback component names are `<OperationId>Request`/`Response`). */
const pascal = (operationId: string) => operationId.charAt(0).toUpperCase() + operationId.slice(1);

/**
 * The OpenAPI 3.1 document of every route in the table but the signed URLs (typed with openapi-types).
 * Custom methods keep their `:verb` suffix in the path, as Google-style APIs document them. Every request
 * and response body is a named component (`$ref`), except raw bytes (image answers, a multipart file's
 * content), and carries an example generated from its schema.
 */
export function buildOpenApiDocument(routes: readonly RouteSpec[]): OpenAPIV3_1.Document {
  const components = new SchemaComponents();
  for (const [surface, name] of Object.entries(errorComponent)) {
    components.define(name, { control: controlPlaneError, inference: inferenceError, image: imageError }[surface as Surface]);
  }
  const documented = routes.filter((route) => !route.signedUrl);
  // Names chosen by the routes first, so an identical schema met earlier without one does not take it.
  const refs = new Map<RouteSpec, { request?: { $ref: string }; response?: { $ref: string } }>();
  for (const pass of ['named', 'derived'] as const) {
    for (const route of documented) {
      const entry = refs.get(route) ?? {};
      const request = route.multipartFile ? multipartFileSchema(route.multipartFile.field) : route.requestBody;
      const fallback = pascal(route.operationId);
      const names = route.schemaNames ?? {};
      if (request !== undefined && entry.request === undefined && (pass === 'derived' || names.requestBody !== undefined)) {
        entry.request = components.register(request, names.requestBody ?? `${fallback}Request`, `${fallback}Request`, pass === 'named');
      }
      if (entry.response === undefined && (pass === 'derived' || names.response !== undefined)) {
        entry.response = components.register(route.response, names.response ?? `${fallback}Response`, `${fallback}Response`, pass === 'named');
      }
      refs.set(route, entry);
    }
  }

  const paths: OpenAPIV3_1.PathsObject = {};
  for (const route of documented) {
    const item: OpenAPIV3_1.PathItemObject = paths[route.path] ?? {};
    const surface = surfaceOf(route.path);
    const { request, response } = refs.get(route)!;
    const binary = Object.fromEntries((route.binaryMediaTypes ?? []).map((type) => [type, { schema: { type: 'string', format: 'binary' } }]));
    const errors = Object.fromEntries(errorStatusesOf(route).map((status): [string, OpenAPIV3_1.ResponseObject] => [String(status), {
      description: errorStatuses[status]!.description,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${errorComponent[surface]}` }, example: errorExample(surface, status) } },
    }]));
    const requestMediaType = route.multipartFile ? 'multipart/form-data' : 'application/json';
    const requestSchema = route.multipartFile ? multipartFileSchema(route.multipartFile.field) : route.requestBody;
    const operation: OpenAPIV3_1.OperationObject = {
      operationId: route.operationId,
      // A summary is plain text where renderers show it (descriptions are Markdown): code spans are
      // unwrapped there and the summary as written becomes the description.
      summary: route.summary.replace(/`([^`]*)`/g, '$1'),
      ...(route.summary.includes('`') ? { description: route.summary } : {}),
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
      ...(request
        ? { requestBody: { required: route.method !== 'DELETE', content: { [requestMediaType]: { schema: request, example: exampleOf(requestSchema, 'request') } } } }
        : {}),
      responses: {
        '200': { description: 'OK', content: { 'application/json': { schema: response, example: exampleOf(route.response, 'response') }, ...binary } },
        ...errors,
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
      title: apiTitle,
      version: apiDescriptionVersion,
      description: 'Control plane (`/v1/accounts/...`) and inference (`/inference/v1/...`) of a Berth model-hosting gateway. Authenticate every call with `Authorization: Bearer <API key>`.',
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' } },
      schemas: components.toComponents() as Record<string, OpenAPIV3_1.SchemaObject>,
    },
  };
}
