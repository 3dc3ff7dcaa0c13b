import type { FieldDeclaration } from '../fields.js';

/** Offset (0-based, in UTF-16 code units) of a token in the filter text; errors name it. */
export type Position = number;

/** A typed literal after checking: values are normalised so back ends never parse text again. */
export type CheckedValue =
  | { readonly type: 'string'; readonly value: string; readonly wildcard: boolean } // wildcard: value contains `*` (only with = and !=)
  | { readonly type: 'enum'; readonly value: string }
  | { readonly type: 'bool'; readonly value: boolean }
  | { readonly type: 'number'; readonly value: number } // int and double fields
  | { readonly type: 'int64'; readonly value: string } // canonical decimal digits, optional leading '-'
  | { readonly type: 'timestamp'; readonly value: string; readonly epochMs: number } // value: ISO 8601 UTC with ms ('Z')
  | { readonly type: 'duration'; readonly seconds: number }
  | { readonly type: 'null' };

export type ComparisonOperator = '=' | '!=' | '<' | '<=' | '>' | '>=';

/** A field reference after checking. `mapKey` is set for `labels.env` on a map field. */
export interface CheckedField {
  readonly declaration: FieldDeclaration;
  readonly mapKey?: string;
  readonly position: Position;
}

/** The checked filter tree that storage back ends consume (memory evaluator, SQL transpiler). */
export type CheckedFilter =
  | { readonly kind: 'and'; readonly operands: readonly CheckedFilter[] }
  | { readonly kind: 'or'; readonly operands: readonly CheckedFilter[] }
  | { readonly kind: 'not'; readonly operand: CheckedFilter }
  | {
      readonly kind: 'compare';
      readonly field: CheckedField;
      readonly operator: ComparisonOperator;
      readonly value: CheckedValue;
    }
  /**
   * `field:value`. On a repeated field: some element equals value. On a map field with `value` a
   * string key: the key is present. On a scalar: equality (strings: equality, `*` wildcards allowed).
   * `value` absent means `field:*`, presence (set and not empty).
   */
  | { readonly kind: 'has'; readonly field: CheckedField; readonly value?: CheckedValue }
  /** A bare literal (AIP-160 global restriction): some declared string field contains the text. */
  | { readonly kind: 'global'; readonly text: string; readonly fields: readonly FieldDeclaration[] };
