import type { Token } from './token.js';
import type { Resolver } from './container.js';
import type { GatewayLogger } from '../ports/logger.js';

export const PLUGIN_API_VERSION = 1;

/** What `register` may do: bind tokens. No I/O happens here. */
export interface Binder {
  /** Binds a value. Throws if the token is already bound, unless `override` is set. */
  bindValue<T>(token: Token<T>, value: T, options?: { override?: boolean }): void;
  /** Binds a lazily built singleton. The factory receives a resolver for the gateway's container. */
  bindFactory<T>(token: Token<T>, factory: (resolver: Resolver) => T, options?: { override?: boolean }): void;
  /** Adds a value to a multi-binding (a list every plugin may contribute to). */
  contribute<T>(token: Token<readonly T[]>, value: T): void;
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
