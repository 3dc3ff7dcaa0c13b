import type { Binder, Binding } from '../kernel/plugin.js';
import { createMultiToken, type Dependency, type Token } from '../kernel/token.js';
import type { RouteSpec } from './route-spec.js';
import { resourceApiRoutes, type ResourceApi } from './resource-api.js';

/** The HTTP routes of every registered resource module, one list per module, in registration order. */
export const resourceRoutesToken = createMultiToken<readonly RouteSpec[]>('ResourceRoutes');

/** One resource kind as a unit (its service binding and its HTTP surface), or further routes of one. */
export interface ResourceModule {
  /** The collection, e.g. `models`, or `apiKeys` for the routes of users' API keys. */
  readonly collection: string;
  register(binder: Binder): void;
}

/**
 * A resource module: binds the service (declared dependencies) and contributes its routes, generated
 * from the API declaration, to `resourceRoutesToken`.
 */
export function defineResourceModule<S, const D extends readonly Dependency[]>(module: {
  readonly service: Binding<S, D>;
  readonly api: ResourceApi<S>;
}): ResourceModule {
  const { service, api } = module;
  return {
    collection: api.definition.collection,
    register(binder) {
      binder.bind(service);
      binder.contribute({ token: resourceRoutesToken, deps: [service.token], factory: (s) => resourceApiRoutes(api, s) });
    },
  };
}

/**
 * Routes beyond a collection's standard surface, built from a service another binding provides: a
 * sub-collection such as a user's API keys (bound by an auth plugin), a resource's file URLs. Contributed
 * to `resourceRoutesToken` like a resource module's, so they are served and documented the same way.
 */
export function defineRouteModule<S>(module: {
  readonly collection: string;
  /** The service the routes call. */
  readonly service: Token<S>;
  readonly routes: (service: S) => readonly RouteSpec[];
}): ResourceModule {
  const { collection, service, routes } = module;
  return {
    collection,
    register(binder) {
      binder.contribute({ token: resourceRoutesToken, deps: [service], factory: routes });
    },
  };
}

/** Registers resource modules (core's list, or a plugin's own kinds). */
export function registerResourceModules(binder: Binder, modules: readonly ResourceModule[]): void {
  for (const module of modules) module.register(binder);
}
