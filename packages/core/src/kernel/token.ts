/** A typed injection token. The phantom field carries the bound type. */
export interface Token<T> {
  readonly key: symbol;
  readonly description: string;
  /** Never set: only carries T for the type checker. */
  readonly __type?: T;
}

export function createToken<T>(description: string): Token<T> {
  return { key: Symbol(description), description };
}
