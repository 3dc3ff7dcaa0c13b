/**
 * The list query contract: what a storage back end receives for a list call. Field declarations name
 * the fields a resource allows in `filter` and `orderBy`; the listing layer parses request text into
 * the checked filter tree and order terms declared here, so back ends never parse text again.
 */
import type { JsonValue } from './json.js';

/**
 * Declarations of the fields a resource allows in `filter` and `orderBy`. Filter and orderBy paths are
 * written snake_case (`create_time`, `base_model`) or camelCase; both resolve to the declared field,
 * whose `path` is the camelCase JSON path inside the stored resource body.
 */
export type FieldType =
  | 'string'
  | 'enum'
  | 'bool'
  | 'int' // int32 or double carried as a JSON number
  | 'int64' // carried as a JSON string of digits, compared numerically
  | 'double'
  | 'timestamp' // RFC 3339 string, compared in time order
  | 'duration'; // protobuf-JSON duration string such as "30s", compared by length

export interface FieldDeclaration {
  /** camelCase JSON path segments inside the resource body, e.g. ['autoscalingPolicy', 'scaleUpWindow']. */
  readonly path: readonly string[];
  readonly type: FieldType;
  /** Allowed values of an enum field. */
  readonly enumValues?: readonly string[];
  /** The field is an array of `type` (has-operator `:` tests membership). */
  readonly repeated?: boolean;
  /** May be used in orderBy (repeated fields never can). Default true for non-repeated fields. */
  readonly sortable?: boolean;
  /** A map field (object with string keys): `labels.env = "x"` or `labels:env`. Values are of `type`. */
  readonly map?: boolean;
}

/** Field declarations of one resource, keyed by the canonical dotted camelCase path (`baseModel`). */
export type FieldDeclarations = Readonly<Record<string, FieldDeclaration>>;

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

/** One `orderBy` term after checking. */
export interface OrderTerm {
  readonly declaration: FieldDeclaration;
  readonly descending: boolean;
}

export interface ListQuery {
  /** `accounts/{account}`, or a user name for nested collections such as API keys. */
  readonly parent: string;
  /** Collection id, e.g. `models`. */
  readonly collection: string;
  readonly filter?: CheckedFilter;
  /** Sort order; always ends with `name` as the unique tiebreaker (the listing layer adds it). */
  readonly orderBy: readonly OrderTerm[];
  readonly pageSize: number;
  /** Keyset position: the order-by values of the last item of the previous page. */
  readonly after?: readonly JsonValue[];
}
