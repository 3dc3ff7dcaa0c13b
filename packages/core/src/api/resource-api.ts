import type { ResourceDefinition } from '../resources/common/resource-definition.js';
import type { Permission } from '../auth/permissions.js';
import type { JsonSchema } from '../validation/schema-validator.js';
import type { QueryParamSpec, RouteRequest, RouteSpec } from './route-spec.js';
import { resourceRoutes, type ResourceOperations } from './resource-routes.js';

/**
 * A custom method (AIP-136) of one resource: `{method} /v1/accounts/{account_id}/<collection>/{<kind>_id}:<verb>`.
 * `handle` gets the service and the resource name the path designates.
 */
export interface CustomMethod<S> {
  readonly method: 'POST' | 'PATCH';
  /** `cancel` for `...:cancel`. */
  readonly verb: string;
  readonly operationId: string;
  readonly summary: string;
  readonly requestBody: JsonSchema;
  readonly response: JsonSchema;
  /** Checked on the path's account before the body is read. */
  readonly permission: Permission;
  handle(service: S, name: string, request: RouteRequest): Promise<unknown>;
}

/**
 * The HTTP surface of one resource kind, as data beside its definition: which standard methods exist
 * (those `operations` returns), the extra query parameters, the create body and its custom methods.
 * Core turns it into route specs (`resourceApiRoutes`); the transport only registers them.
 */
export interface ResourceApi<S> {
  readonly definition: Pick<ResourceDefinition, 'collection' | 'singular' | 'schema'>;
  /** OpenAPI tag, e.g. `Deployed models`. */
  readonly tag: string;
  /** Body schema of create; defaults to the resource schema. */
  readonly createBody?: JsonSchema;
  readonly createQuery?: readonly QueryParamSpec[];
  readonly extraListQuery?: readonly QueryParamSpec[];
  readonly deleteQuery?: readonly QueryParamSpec[];
  /** The standard methods, bound to the service (no create/update/delete: the route does not exist). */
  operations(service: S): ResourceOperations;
  readonly customMethods?: readonly CustomMethod<S>[];
}

/** Declares a resource's HTTP surface (identity function, for inference of `S`). */
export function defineResourceApi<S>(api: ResourceApi<S>): ResourceApi<S> {
  return api;
}

/** The `create` query parameter naming the new resource's id (`modelId`). */
export function idQueryParam(name: string): QueryParamSpec {
  return { name, type: 'string', description: 'Id of the new resource; generated when absent.' };
}

const snakeCase = (camel: string): string => camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Standard and custom routes of one resource kind, bound to its service. */
export function resourceApiRoutes<S>(api: ResourceApi<S>, service: S): RouteSpec[] {
  const { collection, singular, schema } = api.definition;
  const snakeSingular = snakeCase(singular);
  const routes = resourceRoutes({
    tag: api.tag, collection, singular, snakeSingular, schema, operations: api.operations(service),
    ...(api.createBody ? { createBody: api.createBody } : {}),
    ...(api.createQuery ? { createQuery: api.createQuery } : {}),
    ...(api.extraListQuery ? { extraListQuery: api.extraListQuery } : {}),
    ...(api.deleteQuery ? { deleteQuery: api.deleteQuery } : {}),
  });
  const idParam = `${snakeSingular}_id`;
  for (const custom of api.customMethods ?? []) {
    routes.push({
      method: custom.method, path: `/v1/accounts/{account_id}/${collection}/{${idParam}}:${custom.verb}`, tag: api.tag,
      operationId: custom.operationId, summary: custom.summary, requestBody: custom.requestBody, response: custom.response,
      permission: custom.permission,
      handle: (r) => custom.handle(service, `accounts/${r.params.account_id}/${collection}/${r.params[idParam]}`, r),
    });
  }
  return routes;
}
