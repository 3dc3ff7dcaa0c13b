import type { Permission } from '../auth/permissions.js';
import type { RequestContext } from '../kernel/request-context.js';
import type { ResourceDefinition } from '../resources/common/resource-definition.js';
import { compileValidator, type JsonSchema } from '../validation/schema-validator.js';
import { emptySchema } from './resource-routes.js';
import type { QueryParamSpec, RouteRequest, RouteSpec } from './route-spec.js';

/**
 * A custom method (AIP-136) of one resource: `{method} /v1/accounts/{account_id}/<collection>/{<kind>_id}:<verb>`.
 * `handle` gets the service and the resource name the path designates. Usually made by {@link customMethod}.
 */
export interface CustomMethod<S> {
  readonly method: 'GET' | 'POST' | 'PATCH';
  /** `cancel` for `...:cancel`. */
  readonly verb: string;
  readonly operationId: string;
  readonly summary: string;
  /** Absent on a GET method, which takes no body. */
  readonly requestBody: JsonSchema | undefined;
  readonly query?: readonly QueryParamSpec[];
  readonly response: JsonSchema;
  /** Checked on the path's account before the body is read. */
  readonly permission: Permission;
  handle(service: S, name: string, request: RouteRequest): Promise<unknown>;
}

/** What {@link customMethod} needs: the operation's identity and permission, its schemas and what it runs. */
export interface CustomMethodOptions<S, B> {
  /** Default `POST`. A `GET` method takes no body (`run` gets `{}`) and may take `query` parameters. */
  readonly method?: 'GET' | 'POST' | 'PATCH';
  /** Query parameters, parsed and documented (`request.query` in `run`). */
  readonly query?: readonly QueryParamSpec[];
  /** `cancel` for `...:cancel`. */
  readonly verb: string;
  readonly operationId: string;
  readonly summary: string;
  /** Checked on the path's account before the body is read. */
  readonly permission: Permission;
  /** The body's schema, documented and checked (strictly) before `run`. Default: an empty object `{}`. */
  readonly requestBody?: JsonSchema;
  /**
   * `service` when the service checks the body itself (it may accept more than the documented schema):
   * `run` then gets the body unchecked. Default `route`.
   */
  readonly bodyCheckedBy?: 'route' | 'service';
  /** The answer's schema. Without one the method answers `{}`, whatever `run` resolves to. */
  readonly response?: JsonSchema;
  /** The work: `name` is the resource the path designates, `body` the request body (`{}` when absent). */
  run(service: S, ctx: RequestContext, name: string, body: B, request: RouteRequest): Promise<unknown>;
}

/**
 * Declares a custom method: `customMethod({ verb: 'cancel', operationId, summary, permission, run: (jobs, ctx, name) => jobs.cancel(ctx, name) })`
 * is `POST …/{job_id}:cancel` taking `{}` and answering `{}`. The body is validated against
 * `requestBody` before `run` (INVALID_ARGUMENT naming the field); type `body` in `run` to match it.
 */
export function customMethod<S, B = unknown>(options: CustomMethodOptions<S, B>): CustomMethod<S> {
  const { run, response } = options;
  const method = options.method ?? 'POST';
  const requestBody = method === 'GET' ? undefined : options.requestBody ?? emptySchema;
  const check = options.bodyCheckedBy === 'service' || requestBody === undefined ? undefined : compileValidator(requestBody, 'request body');
  return {
    method,
    verb: options.verb,
    operationId: options.operationId,
    summary: options.summary,
    requestBody,
    ...(options.query ? { query: options.query } : {}),
    response: response ?? emptySchema,
    permission: options.permission,
    handle: async (service, name, request) => {
      const body = request.body ?? {};
      check?.(body);
      const result = await run(service, request.ctx, name, body as B, request);
      return response === undefined ? {} : result;
    },
  };
}

/** `deploymentShape` → `deployment_shape` (path parameters are snake_case). */
export const snakeCase = (camel: string): string => camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Where custom methods live: the collection (`datasets`), its singular (`{dataset_id}`) and the OpenAPI tag. */
export interface CustomMethodTarget {
  readonly definition: Pick<ResourceDefinition, 'collection' | 'singular'>;
  readonly tag: string;
}

/** The routes of custom methods on one collection's items, bound to the service that serves them. */
export function customMethodRoutes<S>(target: CustomMethodTarget, methods: readonly CustomMethod<S>[], service: S): RouteSpec[] {
  const { collection, singular } = target.definition;
  const idParam = `${snakeCase(singular)}_id`;
  return methods.map((custom) => ({
    method: custom.method, path: `/v1/accounts/{account_id}/${collection}/{${idParam}}:${custom.verb}`, tag: target.tag,
    operationId: custom.operationId, summary: custom.summary, response: custom.response, permission: custom.permission,
    ...(custom.requestBody ? { requestBody: custom.requestBody } : {}),
    ...(custom.query ? { query: custom.query } : {}),
    handle: (r) => custom.handle(service, `accounts/${r.params.account_id}/${collection}/${r.params[idParam]}`, r),
  }));
}
