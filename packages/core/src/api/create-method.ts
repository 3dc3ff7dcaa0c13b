import type { JsonObject } from '../contracts/json.js';
import type { RequestContext } from '../kernel/request-context.js';
import type { JsonSchema } from '../validation/schema-validator.js';
import { queryString } from './query.js';
import type { QueryParamSpec, RouteRequest } from './route-spec.js';

/**
 * How a resource's create reads its input: the query parameters and body schema it documents, and the
 * call to the service. Made by {@link createWithId}, or written out for a body that names the id itself.
 */
export interface CreateMethod<S> {
  /** Query parameters create reads. */
  readonly query?: readonly QueryParamSpec[];
  /** Body schema of create; defaults to the resource schema. */
  readonly body?: JsonSchema;
  handle(service: S, ctx: RequestContext, accountId: string, request: RouteRequest): Promise<JsonObject>;
}

/** The `create` query parameter naming the new resource's id (`modelId`). */
export function idQueryParam(name: string): QueryParamSpec {
  return { name, type: 'string', description: 'Id of the new resource; generated when absent.' };
}

/** What {@link createWithId} calls: the body (`{}` when absent) and the client's id (undefined: generated). */
export type CreateWithIdRun<S> = (
  service: S,
  ctx: RequestContext,
  accountId: string,
  body: unknown,
  id: string | undefined,
  request: RouteRequest,
) => Promise<JsonObject>;

/**
 * Create with a client-chosen id in a query parameter (AIP-133 `POST …/users?userId=alice`): documents
 * the id parameter, then `extraQuery` (flags such as `validateOnly`, read from `request.query` in `run`).
 */
export function createWithId<S>(idParam: string, run: CreateWithIdRun<S>, extraQuery: readonly QueryParamSpec[] = []): CreateMethod<S> {
  return {
    query: [idQueryParam(idParam), ...extraQuery],
    handle: (service, ctx, accountId, request) => run(service, ctx, accountId, request.body ?? {}, queryString(request.query, idParam), request),
  };
}

/** A service whose create takes the body and the client's id, as `crudService` makes it. */
export interface CreatesWithId {
  create(ctx: RequestContext, accountId: string, body: unknown, id?: string): Promise<JsonObject>;
}

/** {@link createWithId} for a service whose create takes `(ctx, accountId, body, id)` (the common case). */
export function createWithIdParam<S extends CreatesWithId>(idParam: string): CreateMethod<S> {
  return createWithId<S>(idParam, (service, ctx, accountId, body, id) => service.create(ctx, accountId, body, id));
}
