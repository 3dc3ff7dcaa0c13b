import { invalidArgument } from '../errors/index.js';
import type { JsonObject } from '../contracts/json.js';
import type { RequestContext } from '../kernel/request-context.js';
import type { ListPage, ListParams, PreconditionOptions } from '../resources/common/resource-service.js';
import type { JsonSchema } from '../validation/schema-validator.js';
import { queryNumber, queryString } from './query.js';
import { listParams, readMaskParam, type QueryParamSpec, type RouteRequest, type RouteSpec } from './route-spec.js';

/** What a resource service offers the generic routes. */
export interface ResourceOperations {
  create?(ctx: RequestContext, accountId: string, request: RouteRequest): Promise<JsonObject>;
  get(ctx: RequestContext, name: string, readMask?: string): Promise<JsonObject>;
  list(ctx: RequestContext, accountId: string, params: ListParams, request: RouteRequest): Promise<ListPage>;
  update?(ctx: RequestContext, name: string, body: unknown, updateMask: string | undefined, precondition: PreconditionOptions): Promise<JsonObject>;
  delete?(ctx: RequestContext, name: string, request: RouteRequest): Promise<void>;
}

export interface ResourceRoutesOptions {
  readonly tag: string;
  /** `models` */
  readonly collection: string;
  /** `model`: path parameter `{model_id}`, id query parameter `modelId`. */
  readonly singular: string;
  readonly snakeSingular: string;
  readonly schema: JsonSchema;
  /** Dotted paths the server owns (the definition's `outputOnly`): documented as `readOnly`. */
  readonly outputOnly?: readonly string[];
  readonly operations: ResourceOperations;
  /** Body schema of create; defaults to the resource schema. */
  readonly createBody?: JsonSchema;
  readonly createQuery?: readonly QueryParamSpec[];
  readonly extraListQuery?: readonly QueryParamSpec[];
  readonly deleteQuery?: readonly QueryParamSpec[];
}

export const emptySchema = { type: 'object', properties: {} } as const;

/** DELETE's AIP-154 `etag` query parameter (the same as an `If-Match` header). */
export const etagQueryParam: QueryParamSpec = {
  name: 'etag',
  type: 'string',
  description: 'Delete only if the resource still has this etag (AIP-154), else 409 ABORTED; same as an If-Match header.',
};

/**
 * The AIP-154 precondition of a PATCH or DELETE: the `If-Match` header, else DELETE's `etag` query
 * parameter (a PATCH body's `etag` is read by the service).
 */
export function preconditionOf(r: RouteRequest): PreconditionOptions {
  const etag = r.ifMatch ?? queryString(r.query, 'etag');
  return etag === undefined ? {} : { etag };
}

export function listResponseSchema(collection: string, itemSchema: JsonSchema): JsonSchema {
  return {
    type: 'object',
    properties: {
      [collection]: { type: 'array', items: itemSchema },
      nextPageToken: { type: 'string' },
      totalSize: { type: 'integer' },
    },
  };
}

export function listParamsOf(query: RouteRequest['query']): ListParams {
  return {
    ...(queryString(query, 'filter') !== undefined ? { filter: queryString(query, 'filter') } : {}),
    ...(queryString(query, 'orderBy') !== undefined ? { orderBy: queryString(query, 'orderBy') } : {}),
    ...(queryNumber(query, 'pageSize') !== undefined ? { pageSize: queryNumber(query, 'pageSize') } : {}),
    ...(queryString(query, 'pageToken') !== undefined ? { pageToken: queryString(query, 'pageToken') } : {}),
    ...(queryString(query, 'readMask') !== undefined ? { readMask: queryString(query, 'readMask') } : {}),
  };
}

/** Answer of a list call: `{<collection>: [...], nextPageToken?, totalSize}`. */
export function listBody(collection: string, page: ListPage): JsonObject {
  return {
    [collection]: page.items,
    ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
    totalSize: page.totalSize,
  };
}

export { assertEmptyBody } from '../validation/schema-validator.js';

/**
 * `schema` with the properties at `paths` (dotted, through objects and array items) marked `readOnly`, as
 * the OpenAPI document shows output-only fields: clients leave them out of request bodies.
 */
export function withReadOnly(schema: JsonSchema, paths: readonly string[]): JsonSchema {
  const mark = (node: JsonSchema, path: readonly string[]): JsonSchema => {
    const [head, ...rest] = path;
    const properties = node.properties as Record<string, JsonSchema> | undefined;
    if (head === undefined) return { ...node, readOnly: true };
    if (properties?.[head] === undefined) {
      const items = node.items as JsonSchema | undefined;
      return items === undefined ? node : { ...node, items: mark(items, path) };
    }
    return { ...node, properties: { ...properties, [head]: mark(properties[head], rest) } };
  };
  return paths.reduce((marked, path) => mark(marked, path.split('.')), schema);
}

/** Standard create/get/list/update/delete routes of one collection. */
export function resourceRoutes(options: ResourceRoutesOptions): RouteSpec[] {
  const { collection, singular, snakeSingular, tag, operations } = options;
  const schema = withReadOnly(options.schema, options.outputOnly ?? []);
  const base = `/v1/accounts/{account_id}/${collection}`;
  const item = `${base}/{${snakeSingular}_id}`;
  const idParam = `${snakeSingular}_id`;
  const nameOf = (r: RouteRequest) => `accounts/${r.params.account_id}/${collection}/${r.params[idParam]}`;
  const Title = singular.charAt(0).toUpperCase() + singular.slice(1);
  // The collection's own plural (`webhookDeliveries`), not the singular plus "s".
  const Collection = collection.charAt(0).toUpperCase() + collection.slice(1);
  const routes: RouteSpec[] = [];
  if (operations.create) {
    const create = operations.create;
    routes.push({
      method: 'POST', path: base, tag, operationId: `create${Title}`, summary: `Create a ${singular}`,
      query: options.createQuery ?? [], requestBody: options.createBody ?? schema, response: schema, permission: `${collection}.create`,
      schemaNames: { requestBody: options.createBody ? `Create${Title}Request` : Title, response: Title },
      handle: (r) => create(r.ctx, r.params.account_id!, r),
    });
  }
  routes.push({
    method: 'GET', path: base, tag, operationId: `list${Collection}`, summary: `List ${collection}`,
    query: [...listParams, ...(options.extraListQuery ?? [])], response: listResponseSchema(collection, schema), permission: `${collection}.list`,
    schemaNames: { response: `List${Collection}Response` },
    handle: async (r) => listBody(collection, await operations.list(r.ctx, r.params.account_id!, listParamsOf(r.query), r)),
  });
  routes.push({
    method: 'GET', path: item, tag, operationId: `get${Title}`, summary: `Get a ${singular}`,
    query: [readMaskParam], response: schema, permission: `${collection}.get`, schemaNames: { response: Title },
    handle: (r) => operations.get(r.ctx, nameOf(r), queryString(r.query, 'readMask')),
  });
  if (operations.update) {
    const update = operations.update;
    routes.push({
      method: 'PATCH', path: item, tag, operationId: `update${Title}`, summary: `Update a ${singular}`,
      query: [{ name: 'updateMask', type: 'string', description: 'Comma-separated field paths to change; without it every field given is replaced.' }],
      requestBody: schema, response: schema, permission: `${collection}.update`, schemaNames: { requestBody: Title, response: Title },
      handle: (r) => update(r.ctx, nameOf(r), r.body, queryString(r.query, 'updateMask'), preconditionOf(r)),
    });
  }
  if (operations.delete) {
    const remove = operations.delete;
    routes.push({
      method: 'DELETE', path: item, tag, operationId: `delete${Title}`, summary: `Delete a ${singular}`,
      query: [...(options.deleteQuery ?? []), etagQueryParam], response: emptySchema, permission: `${collection}.delete`,
      handle: async (r) => {
        await remove(r.ctx, nameOf(r), r);
        return {};
      },
    });
  }
  return routes;
}

/** Reads `{idField}` and `{bodyField}` from a create wrapper body (models, datasets). */
export function wrapperParts(body: unknown, idField: string, bodyField: string): { id: string | undefined; inner: unknown } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidArgument('request body must be a JSON object');
  const record = body as Record<string, unknown>;
  const id = record[idField];
  if (id !== undefined && typeof id !== 'string') throw invalidArgument(`field "${idField}" must be of type string`, { field: idField });
  return { id, inner: record[bodyField] };
}
