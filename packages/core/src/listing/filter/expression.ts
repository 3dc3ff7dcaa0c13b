/**
 * The raw (unchecked) syntax tree the parser produces, mirroring the AIP-160 grammar one node per rule,
 * every node with the position of its first token. The checker turns it into a `CheckedFilter`.
 */
import type { Position } from './ast.js';

/** A TEXT or STRING token used as a value or field segment. */
export interface Literal {
  readonly text: string;
  readonly quoted: boolean;
  readonly position: Position;
}

/** `member : value {DOT field}`; `negative` is set for an argument written `-5` or `-1.5`. */
export interface Member {
  readonly kind: 'member';
  readonly value: Literal;
  readonly fields: readonly Literal[];
  readonly negative: boolean;
  readonly position: Position;
}

/** `function : name {DOT name} LPAREN [argList] RPAREN` */
export interface FunctionCall {
  readonly kind: 'function';
  readonly name: string;
  readonly args: readonly Arg[];
  readonly position: Position;
}

export type Comparable = Member | FunctionCall;

/** `composite : LPAREN expression RPAREN` */
export interface Composite {
  readonly kind: 'composite';
  readonly expression: Expression;
  readonly position: Position;
}

export type Arg = Comparable | Composite;

export type Comparator = '=' | '!=' | '<' | '<=' | '>' | '>=' | ':';

/** `restriction : comparable [comparator arg]` */
export interface Restriction {
  readonly kind: 'restriction';
  readonly comparable: Comparable;
  readonly comparator?: { readonly operator: Comparator; readonly position: Position };
  readonly arg?: Arg;
  readonly position: Position;
}

export type Expression =
  /** `expression : sequence {WS AND WS sequence}` (two or more operands) */
  | { readonly kind: 'and'; readonly operands: readonly Expression[]; readonly position: Position }
  /** `sequence : factor {WS factor}` (two or more operands; implicit AND) */
  | { readonly kind: 'sequence'; readonly operands: readonly Expression[]; readonly position: Position }
  /** `factor : term {WS OR WS term}` (two or more operands) */
  | { readonly kind: 'or'; readonly operands: readonly Expression[]; readonly position: Position }
  /** `term : (NOT WS | MINUS) simple` */
  | { readonly kind: 'not'; readonly operand: Expression; readonly position: Position }
  | Restriction
  | Composite;
