import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import type { Token } from './token.js';

/** Read access to a gateway's bindings. */
export interface Resolver {
  resolve<T>(token: Token<T>): T;
  resolveAll<T>(token: Token<readonly T[]>): readonly T[];
  isBound(token: Token<unknown>): boolean;
}

export class AssemblyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AssemblyError';
  }
}

/**
 * One tsyringe child container per gateway: nothing is registered into the global container, so two
 * gateways in one process never see each other's bindings. Bindings are factories (no decorator
 * metadata needed, which esbuild-based runners do not emit).
 */
export class GatewayContainer implements Resolver {
  private readonly container: DependencyContainer = rootContainer.createChildContainer();
  private readonly owners = new Map<symbol, string>();
  private readonly multi = new Map<symbol, unknown[]>();
  private readonly singletons = new Map<symbol, unknown>();

  bind<T>(owner: string, token: Token<T>, factory: (resolver: Resolver) => T, override: boolean): void {
    const previous = this.owners.get(token.key);
    if (previous !== undefined && !override) {
      throw new AssemblyError(
        `plugin "${owner}" binds ${token.description}, which plugin "${previous}" already bound (pass { override: true } to replace it)`,
      );
    }
    this.owners.set(token.key, owner);
    this.singletons.delete(token.key);
    this.container.register(token.key, {
      useFactory: () => {
        if (!this.singletons.has(token.key)) this.singletons.set(token.key, factory(this));
        return this.singletons.get(token.key);
      },
    });
  }

  contribute<T>(token: Token<readonly T[]>, value: T): void {
    const list = this.multi.get(token.key) ?? [];
    list.push(value);
    this.multi.set(token.key, list);
  }

  ownerOf(token: Token<unknown>): string | undefined {
    return this.owners.get(token.key);
  }

  isBound(token: Token<unknown>): boolean {
    return this.owners.has(token.key);
  }

  resolve<T>(token: Token<T>): T {
    if (!this.owners.has(token.key)) {
      throw new AssemblyError(`nothing is bound to ${token.description}: add a plugin that provides it`);
    }
    return this.container.resolve<T>(token.key);
  }

  resolveAll<T>(token: Token<readonly T[]>): readonly T[] {
    return (this.multi.get(token.key) as T[] | undefined) ?? [];
  }

  dispose(): void {
    this.singletons.clear();
    this.container.clearInstances();
  }
}
