import type { JsonObject } from '../contracts/json.js';
import type { RequestContext } from '../kernel/request-context.js';
import type { ListPage, ListParams, PreconditionOptions } from '../resources/common/resource-service.js';
import { preconditionOf, type ResourceOperations } from './resource-routes.js';

/** The standard methods other than create, as a resource API's `operations` answers them. */
export type StandardOperations = Omit<ResourceOperations, 'create'>;

/** A service's get and list, with the standard signatures. */
export interface ReadableService {
  get(ctx: RequestContext, name: string, readMask?: string): Promise<JsonObject>;
  list(ctx: RequestContext, accountId: string, params: ListParams): Promise<ListPage>;
}

/** A service's update and delete, with the standard signatures (the AIP-154 precondition last). */
export interface WritableService {
  update(ctx: RequestContext, name: string, body: unknown, updateMask: string | undefined, options: PreconditionOptions): Promise<JsonObject>;
  delete(ctx: RequestContext, name: string, options: PreconditionOptions): Promise<void>;
}

/**
 * The standard methods of a service whose methods have the standard signatures: get and list always,
 * update and delete when named (`standardOperations(users, ['update', 'delete'])`); a method not named
 * has no route. Delete passes the `If-Match`/`etag` precondition. Override an entry by spreading.
 */
export function standardOperations<W extends keyof WritableService = never>(
  service: ReadableService & Pick<WritableService, NoInfer<W>>,
  writes: readonly W[] = [],
): StandardOperations {
  const operations: { -readonly [K in keyof StandardOperations]: StandardOperations[K] } = {
    get: (ctx, name, readMask) => service.get(ctx, name, readMask),
    list: (ctx, accountId, params) => service.list(ctx, accountId, params),
  };
  const named = writes as readonly string[];
  const writable = service as unknown as WritableService;
  if (named.includes('update')) {
    operations.update = (ctx, name, body, updateMask, precondition) => writable.update(ctx, name, body, updateMask, precondition);
  }
  if (named.includes('delete')) operations.delete = (ctx, name, request) => writable.delete(ctx, name, preconditionOf(request));
  return operations;
}
