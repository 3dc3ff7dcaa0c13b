import type { Dependency, MultiToken, ResolvedAll, Token } from './token.js';
import type { Resolver } from './container.js';
import type { GatewayLogger } from '../ports/logger.js';

export const PLUGIN_API_VERSION = 1;

/** A binding: the token it provides, the tokens it needs and the factory that builds it from them. */
export interface Binding<T, D extends readonly Dependency[]> {
  readonly token: Token<T>;
  /** What the factory needs, in argument order. A multi token resolves to its list; `optional(t)` to `undefined` when unbound. */
  readonly deps: D;
  readonly factory: (...args: ResolvedAll<D>) => T;
  /** Replace a binding made by an earlier plugin (otherwise binding a bound token fails assembly). */
  readonly override?: boolean;
}

/** An item contributed to a multi-binding, built from what it needs. */
export interface Contribution<T, D extends readonly Dependency[]> {
  readonly token: MultiToken<T>;
  readonly deps: D;
  readonly factory: (...args: ResolvedAll<D>) => T;
}

/**
 * What `register` may do: declare bindings. No I/O happens here, nothing is built: `createGateway` checks
 * the whole graph (every dependency bound, no cycle) and the container builds each binding once, on first use.
 */
export interface Binder {
  /** Binds a singleton built from its declared dependencies. Throws if the token is already bound, unless `override` is set. */
  bind<T, const D extends readonly Dependency[]>(binding: Binding<T, D>): void;
  /** Binds a value. Throws if the token is already bound, unless `override` is set. */
  bindValue<T>(token: Token<T>, value: T, options?: { override?: boolean }): void;
  /** Adds a value, or an item built from its declared dependencies, to a multi-binding. */
  contribute<T>(token: MultiToken<T>, value: T): void;
  contribute<T, const D extends readonly Dependency[]>(contribution: Contribution<T, D>): void;
}

export interface LifecycleContext {
  readonly resolver: Resolver;
  readonly logger: GatewayLogger;
  readonly signal: AbortSignal;
}

/** A plugin is a value. Each plugin package exports a factory returning one. */
export interface GatewayPlugin {
  readonly id: string;
  readonly apiVersion: number;
  /** Ids of plugins that must be registered before this one (for start order). */
  readonly dependsOn?: readonly string[];
  register(binder: Binder): void;
  start?(ctx: LifecycleContext): Promise<void> | void;
  stop?(ctx: LifecycleContext): Promise<void> | void;
}

export function definePlugin(plugin: Omit<GatewayPlugin, 'apiVersion'> & { apiVersion?: number }): GatewayPlugin {
  if (!/^[a-z][a-z0-9-]*(\/[a-z0-9-]+)?$/.test(plugin.id)) {
    throw new Error(`plugin id "${plugin.id}" must be lowercase letters, digits and hyphens`);
  }
  return { ...plugin, apiVersion: plugin.apiVersion ?? PLUGIN_API_VERSION };
}

/** Start/stop work contributed to `lifecycleHooksToken`: run after every plugin started, stopped before them. */
export interface LifecycleHook {
  readonly id: string;
  start?(ctx: LifecycleContext): Promise<void> | void;
  stop?(ctx: LifecycleContext): Promise<void> | void;
}
