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
