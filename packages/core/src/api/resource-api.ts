import type { ResourceDefinition } from '../resources/common/resource-definition.js';
import type { QueryParamSpec, RouteSpec } from './route-spec.js';
import { resourceRoutes, withReadOnly } from './resource-routes.js';
import type { CreateMethod } from './create-method.js';
import { customMethodRoutes, snakeCase, type CustomMethod } from './custom-method.js';
import type { StandardOperations } from './standard-operations.js';

/**
 * The HTTP surface of one resource kind, as data beside its definition: how create reads its input,
 * which other standard methods exist (those `operations` returns), the extra query parameters and its
 * custom methods. Core turns it into route specs (`resourceApiRoutes`); the transport only registers them.
 */
export interface ResourceApi<S> {
  /** With `outputOnly`, those fields are documented as read-only. */
  readonly definition: Pick<ResourceDefinition, 'collection' | 'singular' | 'schema'> & Partial<Pick<ResourceDefinition, 'outputOnly'>>;
  /** OpenAPI tag, e.g. `Deployed models`. */
  readonly tag: string;
  /** Create (`createWithId(...)` for a client-chosen id in the query); without it there is no create route. */
  readonly create?: CreateMethod<S>;
  readonly extraListQuery?: readonly QueryParamSpec[];
  readonly deleteQuery?: readonly QueryParamSpec[];
  /**
   * The other standard methods, bound to the service (`standardOperations(service, ['update', 'delete'])`);
   * without update or delete the route does not exist.
   */
  operations(service: S): StandardOperations;
  /** Made with `customMethod(...)`. */
  readonly customMethods?: readonly CustomMethod<S>[];
}

/** Declares a resource's HTTP surface (identity function, for inference of `S`). */
export function defineResourceApi<S>(api: ResourceApi<S>): ResourceApi<S> {
  return api;
}

/** Standard and custom routes of one resource kind, bound to its service. */
export function resourceApiRoutes<S>(api: ResourceApi<S>, service: S): RouteSpec[] {
  const { collection, singular, schema, outputOnly } = api.definition;
  const { create } = api;
  const routes = resourceRoutes({
    tag: api.tag, collection, singular, snakeSingular: snakeCase(singular), schema, ...(outputOnly ? { outputOnly } : {}),
    operations: create ? { ...api.operations(service), create: (ctx, accountId, r) => create.handle(service, ctx, accountId, r) } : api.operations(service),
    ...(create?.body ? { createBody: create.body } : {}),
    ...(create?.query ? { createQuery: create.query } : {}),
    ...(api.extraListQuery ? { extraListQuery: api.extraListQuery } : {}),
    ...(api.deleteQuery ? { deleteQuery: api.deleteQuery } : {}),
  });
  // A custom method answering the resource (`:undelete`) documents it as the standard methods do.
  const documented = withReadOnly(schema, outputOnly ?? []);
  routes.push(...customMethodRoutes(api, api.customMethods ?? [], service).map((route) => (route.response === schema ? { ...route, response: documented } : route)));
  return routes;
}
