import type { Binder, Binding } from '../kernel/plugin.js';
import { createMultiToken, type Dependency } from '../kernel/token.js';
import type { RouteSpec } from './route-spec.js';
import { resourceApiRoutes, type ResourceApi } from './resource-api.js';

/** The HTTP routes of every registered resource module, one list per module, in registration order. */
export const resourceRoutesToken = createMultiToken<readonly RouteSpec[]>('ResourceRoutes');

/** One resource kind as a unit: its service binding and its HTTP surface. */
export interface ResourceModule {
  /** The collection, e.g. `models`. */
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

/** Registers resource modules (core's list, or a plugin's own kinds). */
export function registerResourceModules(binder: Binder, modules: readonly ResourceModule[]): void {
  for (const module of modules) module.register(binder);
}
