import type { Position } from './ast.js';

/** Token kinds of the AIP-160 lexical grammar. Keywords (AND, OR, NOT) are only recognised uppercase. */
export type TokenType =
  | 'lparen'
  | 'rparen'
  | 'comma'
  | 'dot'
  | 'equals'
  | 'notEquals'
  | 'lessThan'
  | 'lessEquals'
  | 'greaterThan'
  | 'greaterEquals'
  | 'has'
  | 'minus'
  | 'string'
  | 'text'
  | 'and'
  | 'or'
  | 'not'
  | 'end';

export interface Token {
  readonly type: TokenType;
  /** The source text of the token. */
  readonly raw: string;
  /** For `string`: the unescaped content; otherwise equal to `raw`. */
  readonly value: string;
  readonly position: Position;
  /** Whitespace separates this token from the previous one. */
  readonly spaceBefore: boolean;
}

/** How a token is named in error messages. */
export function describeToken(token: Token): string {
  return token.type === 'end' ? 'end of filter' : `'${token.raw}'`;
}
