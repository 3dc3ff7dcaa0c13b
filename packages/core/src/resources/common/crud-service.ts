import type { RequestContext } from '../../kernel/request-context.js';
import type { JsonObject } from '../../ports/json.js';
import type { ResourceDefinition } from './resource-definition.js';
import type { ResourceEnvironment } from './resource-environment.js';
import { ResourceService, type ListPage, type ListParams, type PreconditionOptions } from './resource-service.js';
import type { GatewaySecrets } from './secrets.js';

/** The standard methods (AIP-131 to 135) of a resource kind, as its service offers them. */
export interface StandardMethods<T extends JsonObject> {
  /**
   * Creates a resource from a client body; `id` is generated when absent. Throws PERMISSION_DENIED,
   * INVALID_ARGUMENT (schema, the kind's rules, references), FAILED_PRECONDITION (the kind's rules),
   * ALREADY_EXISTS.
   */
  create(ctx: RequestContext, accountId: string, body: unknown, id?: string): Promise<T>;
  /** The resource, with only the `readMask` fields when one is given. NOT_FOUND when absent. */
  get(ctx: RequestContext, name: string, readMask?: string): Promise<T>;
  list(ctx: RequestContext, accountId: string, params: ListParams): Promise<ListPage<T>>;
  /** PATCH (see {@link ResourceService.update}). */
  update(ctx: RequestContext, name: string, body: unknown, updateMask?: string, options?: PreconditionOptions): Promise<T>;
  /** Deletes the resource; with `options.etag` only while it is current. NOT_FOUND when absent. */
  delete(ctx: RequestContext, name: string, options?: PreconditionOptions): Promise<void>;
}

export type StandardMethodName = keyof StandardMethods<JsonObject>;

/** A service with the standard methods `M` of its kind, over the kind's {@link ResourceService}. */
export type CrudService<T extends JsonObject, M extends StandardMethodName> = Pick<StandardMethods<T>, M> & {
  /** The engine the standard methods run on; the kind's own methods use it too. */
  readonly resources: ResourceService<T>;
};

/** The class {@link crudService} makes: constructed with the environment, the secrets, then `A`. */
export type CrudServiceClass<T extends JsonObject, M extends StandardMethodName, A extends unknown[]> = new (
  env: ResourceEnvironment,
  secrets: GatewaySecrets,
  ...args: A
) => CrudService<T, M>;

type Crud = { readonly resources: ResourceService };

/** Each standard method, straight to the engine. */
const standardMethods: { [M in StandardMethodName]: (this: Crud, ...args: Parameters<StandardMethods<JsonObject>[M]>) => ReturnType<StandardMethods<JsonObject>[M]> } = {
  create(ctx, accountId, body, id) {
    return this.resources.create(ctx, accountId, body, id === undefined ? {} : { id });
  },
  get(ctx, name, readMask) {
    return this.resources.get(ctx, name, readMask);
  },
  list(ctx, accountId, params) {
    return this.resources.list(ctx, accountId, params);
  },
  update(ctx, name, body, updateMask, options = {}) {
    return this.resources.update(ctx, name, body, updateMask, options);
  },
  delete(ctx, name, options = {}) {
    return this.resources.delete(ctx, name, options);
  },
};

/**
 * The service of a resource kind, made from its definition: the standard methods listed in `methods`
 * (only those: a kind without update has no `update`), each running on a {@link ResourceService} of
 * the definition, which the class exposes as `resources`. A kind's own behaviour goes in a subclass:
 *
 * ```ts
 * export class JobService extends crudService(jobDefinition, ['create', 'get', 'list', 'delete']) {
 *   cancel(ctx: RequestContext, name: string): Promise<Job> { … this.resources.mutate(…) … }
 * }
 * ```
 *
 * A definition that depends on construction arguments (e.g. the serving advisor) is given as a
 * function of them; the class then takes them after the environment and the secrets.
 */
export function crudService<T extends JsonObject, M extends StandardMethodName>(
  definition: ResourceDefinition<T>,
  methods: readonly M[],
): CrudServiceClass<T, M, []>;
export function crudService<T extends JsonObject, M extends StandardMethodName, A extends unknown[]>(
  definition: (...args: A) => ResourceDefinition<T>,
  methods: readonly M[],
): CrudServiceClass<T, M, A>;
export function crudService<T extends JsonObject, M extends StandardMethodName, A extends unknown[]>(
  definition: ResourceDefinition<T> | ((...args: A) => ResourceDefinition<T>),
  methods: readonly M[],
): CrudServiceClass<T, M, A> {
  class Service {
    readonly resources: ResourceService<T>;

    constructor(env: ResourceEnvironment, secrets: GatewaySecrets, ...args: A) {
      this.resources = new ResourceService(typeof definition === 'function' ? definition(...args) : definition, env, secrets);
    }
  }
  for (const method of methods) {
    Object.defineProperty(Service.prototype, method, { value: standardMethods[method], writable: true, configurable: true });
  }
  // The methods are on the prototype (defined just above), which the class syntax cannot declare.
  return Service as unknown as CrudServiceClass<T, M, A>;
}
