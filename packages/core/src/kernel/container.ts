import 'reflect-metadata';
import { container as rootContainer, instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import { dependencyToken, type Dependency, type Token } from './token.js';

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

/** One declared binding or contribution: who made it and what it needs (the graph `checkGraph` walks). */
interface BindingNode {
  readonly owner: string;
  readonly token: Token<unknown>;
  readonly deps: readonly Dependency[];
}

type Factory = (...args: unknown[]) => unknown;

const describe = (node: BindingNode): string => `${node.token.description} (bound by plugin "${node.owner}")`;

/**
 * One tsyringe child container per gateway: nothing is registered into the global container, so two
 * gateways in one process never see each other's bindings. Each binding is a tsyringe factory provider
 * cached per container (`instanceCachingFactory`: a singleton of this gateway), built from its declared
 * dependencies; no decorator metadata is needed, which esbuild-based runners do not emit. Multi-bindings
 * are several providers of one token, read with tsyringe's `resolveAll`.
 */
export class GatewayContainer implements Resolver {
  private readonly container: DependencyContainer = rootContainer.createChildContainer();
  private readonly bindings = new Map<symbol, BindingNode>();
  private readonly contributions = new Map<symbol, BindingNode[]>();

  bind(owner: string, token: Token<unknown>, deps: readonly Dependency[], factory: Factory, override: boolean): void {
    if (token.multi) throw new AssemblyError(`plugin "${owner}" binds ${token.description}, a multi-binding: contribute to it instead`);
    const previous = this.bindings.get(token.key);
    if (previous !== undefined && !override) {
      throw new AssemblyError(
        `plugin "${owner}" binds ${token.description}, which plugin "${previous.owner}" already bound (pass { override: true } to replace it)`,
      );
    }
    this.bindings.set(token.key, { owner, token, deps });
    // tsyringe answers the last registration of a token, so an override replaces the earlier binding.
    this.container.register(token.key, { useFactory: this.provider(deps, factory) });
  }

  bindValue(owner: string, token: Token<unknown>, value: unknown, override: boolean): void {
    this.bind(owner, token, [], () => value, override);
  }

  contribute(owner: string, token: Token<unknown>, deps: readonly Dependency[], factory: Factory): void {
    if (!token.multi) throw new AssemblyError(`plugin "${owner}" contributes to ${token.description}, which is not a multi-binding`);
    const list = this.contributions.get(token.key) ?? [];
    list.push({ owner, token, deps });
    this.contributions.set(token.key, list);
    this.container.register(token.key, { useFactory: this.provider(deps, factory) });
  }

  private provider(deps: readonly Dependency[], factory: Factory): (c: DependencyContainer) => unknown {
    return instanceCachingFactory(() => factory(...deps.map((dependency) => this.resolveDependency(dependency))));
  }

  private resolveDependency(dependency: Dependency): unknown {
    const token = dependencyToken(dependency);
    if (token !== dependency && !this.isBound(token)) return undefined;
    return this.resolve(token);
  }

  ownerOf(token: Token<unknown>): string | undefined {
    return this.bindings.get(token.key)?.owner;
  }

  isBound(token: Token<unknown>): boolean {
    return token.multi ? this.contributions.has(token.key) : this.bindings.has(token.key);
  }

  resolve<T>(token: Token<T>): T {
    if (token.multi) return this.resolveAll(token as Token<readonly unknown[]>) as T;
    if (!this.bindings.has(token.key)) {
      throw new AssemblyError(`nothing is bound to ${token.description}: add ${token.providedBy ?? 'a plugin that provides it'}`);
    }
    return this.container.resolve<T>(token.key);
  }

  resolveAll<T>(token: Token<readonly T[]>): readonly T[] {
    return this.contributions.has(token.key) ? this.container.resolveAll<T>(token.key) : [];
  }

  /**
   * Checks the declared graph before anything is built: every dependency is bound (optional ones and
   * multi-bindings may be empty) and no binding needs itself through others. Names the binding, the plugin
   * that made it and what should provide the missing token.
   */
  checkGraph(): void {
    const nodes = [...this.bindings.values(), ...[...this.contributions.values()].flat()];
    for (const node of nodes) {
      for (const dependency of node.deps) {
        const token = dependencyToken(dependency);
        if (token !== dependency || token.multi || this.bindings.has(token.key)) continue;
        throw new AssemblyError(
          `${describe(node)} needs ${token.description}, which no plugin provides: add ${token.providedBy ?? 'a plugin that binds it'}`,
        );
      }
    }
    const done = new Set<symbol>();
    const path: BindingNode[] = [];
    const visit = (token: Token<unknown>): void => {
      if (done.has(token.key)) return;
      const onPath = path.findIndex((node) => node.token.key === token.key);
      if (onPath >= 0) {
        const cycle = path.slice(onPath).map(describe);
        throw new AssemblyError(`dependency cycle: ${[...cycle, token.description].join(' → ')}`);
      }
      const own = token.multi ? (this.contributions.get(token.key) ?? []) : [this.bindings.get(token.key)];
      for (const node of own) {
        if (node === undefined) continue;
        path.push(node);
        for (const dependency of node.deps) visit(dependencyToken(dependency));
        path.pop();
      }
      done.add(token.key);
    };
    for (const node of nodes) visit(node.token);
  }

  dispose(): void {
    this.container.clearInstances();
  }
}
