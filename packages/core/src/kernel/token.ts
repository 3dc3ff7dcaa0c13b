/** A typed injection token. The phantom field carries the bound type. */
export interface Token<T> {
  readonly key: symbol;
  readonly description: string;
  /** What provides it, named in assembly errors when it is missing (e.g. `a storage plugin such as memoryStorage()`). */
  readonly providedBy?: string;
  /** A multi-binding: every plugin may contribute an item; resolving it answers the list (empty when none). */
  readonly multi?: boolean;
  /** Never set: only carries T for the type checker. */
  readonly __type?: T;
}

/** A token every plugin may contribute items to; resolved as the list of contributions. */
export type MultiToken<T> = Token<readonly T[]> & { readonly multi: true };

export function createToken<T>(description: string, options: { providedBy?: string } = {}): Token<T> {
  return { key: Symbol(description), description, ...(options.providedBy !== undefined ? { providedBy: options.providedBy } : {}) };
}

export function createMultiToken<T>(description: string): MultiToken<T> {
  return { key: Symbol(description), description, multi: true };
}

/** A dependency that resolves to `undefined` when nothing is bound to its token. */
export interface OptionalDependency<T> {
  readonly optional: Token<T>;
}

export function optional<T>(token: Token<T>): OptionalDependency<T> {
  return { optional: token };
}

/** What a binding may depend on: a token (a multi token resolves to its list) or an optional token. */
export type Dependency = Token<unknown> | OptionalDependency<unknown>;

/** The value a dependency resolves to. */
export type Resolved<D> = D extends OptionalDependency<infer T> ? T | undefined : D extends Token<infer T> ? T : never;

/** The factory arguments of a dependency list, in order. */
export type ResolvedAll<D extends readonly Dependency[]> = { -readonly [K in keyof D]: Resolved<D[K]> };

export function dependencyToken(dependency: Dependency): Token<unknown> {
  return 'optional' in dependency ? dependency.optional : dependency;
}
