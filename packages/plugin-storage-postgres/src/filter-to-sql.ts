/**
 * AIP-160 filters, orderBy and keyset positions translated to PostgreSQL over the `data` jsonb column.
 * Written in-house (like the rest of the AIP layer), after einride/spanner-aip-go's transpiler: every
 * value a client supplied becomes a `$n` parameter, never SQL text. Only field paths from the resource's
 * declarations (checked to be plain identifiers) and fixed fragments of this module are inlined.
 *
 * The semantics mirror `evaluateFilter` and `compareSortKeys` from `@berth/core` exactly:
 * - A value is read as "typed": SQL NULL when absent, JSON null, or not of the declared type (so a
 *   string stored in an int64 field is absent, as in memory).
 * - A leaf is false (or NULL, which WHERE treats as false) when the value is absent; NOT negates
 *   `COALESCE(<operand>, false)`, so it is plain two-valued negation, as in the evaluator.
 * - int64, numbers and durations compare as `numeric`; strings, enums and timestamps as text with
 *   `COLLATE "C"` (code-point order; it equals the evaluator's UTF-16 order except between characters
 *   above U+FFFF and U+E000–U+FFFF).
 * - Timestamps: stored values are expected in the gateway's normalised form (ISO 8601 UTC with
 *   milliseconds, `toISOString()`), which sorts like the instant. A stored timestamp in another RFC 3339
 *   form is treated as absent here, while the memory store would parse it.
 * - Global restrictions use `lower()`, which folds non-ASCII letters only as the database's locale does.
 */
import type { CheckedFilter, CheckedValue, ComparisonOperator, FieldDeclaration, JsonValue, OrderTerm } from '@berth/core';

/** Collects parameter values and hands out their placeholders; equal values share one placeholder. */
export class SqlParams {
  readonly values: unknown[];
  private readonly seen = new Map<string, string>();

  constructor(initial: readonly unknown[] = []) {
    this.values = [...initial];
  }

  /** Adds a value (string, number as text, boolean or null) and returns its `$n`. */
  add(value: string | boolean | null): string {
    const key = `${typeof value}:${String(value)}`;
    const existing = this.seen.get(key);
    if (existing !== undefined) return existing;
    this.values.push(value);
    const placeholder = `$${this.values.length}`;
    this.seen.set(key, placeholder);
    return placeholder;
  }
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The normalised timestamp form (`Date.prototype.toISOString`, years 0001–9999). */
const NORMALISED_TIMESTAMP = `'^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\\.[0-9]{3}Z$'`;
const DURATION = `'^-?[0-9]{1,12}(\\.[0-9]{1,9})?s$'`;
const INT64 = `'^-?[0-9]{1,40}$'`;

/**
 * Generated columns (migration 6) that store the typed value of the hottest fields, exactly as
 * `typedValue` computes it. Naming the column instead of the expression lets PostgreSQL answer a
 * count from an index alone (it never does an index-only scan over an expression index).
 */
const KEY_COLUMNS: ReadonlyArray<{ readonly field: string; readonly types: readonly FieldDeclaration['type'][]; readonly column: string }> = [
  { field: 'state', types: ['string', 'enum'], column: 'state_key' },
  { field: 'baseModel', types: ['string', 'enum'], column: 'base_model_key' },
  { field: 'createTime', types: ['timestamp'], column: 'create_time_key' },
];

/** The generated column holding `typedValue` of a top-level field read as `type`, if there is one. */
export function keyColumn(path: readonly string[], type: FieldDeclaration['type'], mapKey?: string): string | undefined {
  if (path.length !== 1 || mapKey !== undefined) return undefined;
  return KEY_COLUMNS.find((k) => k.field === path[0] && k.types.includes(type))?.column;
}

function isNameColumn(declaration: FieldDeclaration): boolean {
  return declaration.path.length === 1 && declaration.path[0] === 'name' && declaration.type === 'string';
}

/** The jsonb value at a declared path (and map key): SQL NULL when a step is missing. */
export function jsonPath(path: readonly string[], params: SqlParams, mapKey?: string): string {
  let sql: string;
  if (path.every((segment) => IDENTIFIER.test(segment))) {
    sql = path.length === 0 ? 'data' : `(data #> '{${path.join(',')}}')`;
  } else {
    sql = path.reduce((acc, segment) => `(${acc} -> ${params.add(segment)}::text)`, 'data');
  }
  return mapKey === undefined ? sql : `(${sql} -> ${params.add(mapKey)}::text)`;
}

/** Text of a jsonb string, else NULL. */
const stringOf = (v: string): string => `(CASE WHEN jsonb_typeof(${v}) = 'string' THEN ${v} #>> '{}' END)`;

/**
 * The typed SQL value of a jsonb expression for a field type: what the evaluator compares and the sort
 * key orders by. NULL when absent or not of the type. Strings carry `COLLATE "C"`.
 */
export function typedValue(v: string, type: FieldDeclaration['type']): string {
  switch (type) {
    case 'string':
    case 'enum':
      return `(${stringOf(v)} COLLATE "C")`;
    case 'timestamp':
      return `((CASE WHEN jsonb_typeof(${v}) = 'string' AND (${v} #>> '{}') ~ ${NORMALISED_TIMESTAMP} THEN ${v} #>> '{}' END) COLLATE "C")`;
    case 'bool':
      return `(CASE WHEN jsonb_typeof(${v}) = 'boolean' THEN (${v})::boolean END)`;
    case 'int':
    case 'double':
      return `(CASE WHEN jsonb_typeof(${v}) = 'number' THEN (${v})::numeric END)`;
    case 'int64':
      // A JSON string of digits within int64, or an integral JSON number within the safe-integer range.
      // Nested CASEs: PostgreSQL does not promise to evaluate AND operands in order, and the casts
      // would fail on values the outer test rules out.
      return (
        `(CASE WHEN jsonb_typeof(${v}) = 'string' AND (${v} #>> '{}') ~ ${INT64} THEN` +
        ` (CASE WHEN (${v} #>> '{}')::numeric BETWEEN -9223372036854775808 AND 9223372036854775807 THEN (${v} #>> '{}')::numeric END)` +
        ` WHEN jsonb_typeof(${v}) = 'number' THEN` +
        ` (CASE WHEN (${v})::numeric = trunc((${v})::numeric) AND abs((${v})::numeric) <= 9007199254740991 THEN (${v})::numeric END) END)`
      );
    case 'duration':
      return (
        `(CASE WHEN jsonb_typeof(${v}) = 'string' AND (${v} #>> '{}') ~ ${DURATION} THEN` +
        ` (CASE WHEN abs(rtrim(${v} #>> '{}', 's')::numeric) <= 315576000000 THEN rtrim(${v} #>> '{}', 's')::numeric END) END)`
      );
  }
}

/** The placeholder (with cast) for a checked literal, typed like `typedValue`. */
function literal(value: Exclude<CheckedValue, { type: 'null' }>, params: SqlParams): string {
  switch (value.type) {
    case 'string':
    case 'enum':
      return `${params.add(value.value)}::text`;
    case 'timestamp':
      return `${params.add(value.value)}::text`;
    case 'bool':
      return `${params.add(value.value)}::boolean`;
    case 'number':
      return `${params.add(String(value.value))}::numeric`;
    case 'int64':
      return `${params.add(value.value)}::numeric`;
    case 'duration':
      return `${params.add(String(value.seconds))}::numeric`;
  }
}

/** `*` → `%`, with LIKE's own metacharacters escaped (escape character `\`). */
export function wildcardToLike(pattern: string): string {
  return pattern.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');
}

/** The value's type as the evaluator reads the stored value (`number` covers int and double). */
function typeForValue(value: Exclude<CheckedValue, { type: 'null' }>): FieldDeclaration['type'] {
  switch (value.type) {
    case 'number':
      return 'double';
    default:
      return value.type;
  }
}

/**
 * One comparison of a stored jsonb value `v` with a literal. Mirrors the evaluator's `compareValue`,
 * including the odd corners: booleans and enums compare by equality only (`<` on a boolean is never
 * true, `>=` always is when present).
 */
function compareJson(v: string, operator: ComparisonOperator, value: Exclude<CheckedValue, { type: 'null' }>, params: SqlParams, typed?: string): string {
  const left = typed ?? typedValue(v, typeForValue(value));
  if (value.type === 'string' && value.wildcard && (operator === '=' || operator === '!=')) {
    const like = `${left} LIKE ${params.add(wildcardToLike(value.value))}::text ESCAPE '\\'`;
    return operator === '=' ? `(${like})` : `(${left} IS NOT NULL AND NOT (${like}))`;
  }
  if (value.type === 'bool') {
    const equal = `(${left} = ${literal(value, params)})`;
    switch (operator) {
      case '=':
      case '<=':
        return equal;
      case '!=':
      case '>':
        return `(NOT ${equal})`;
      case '<':
        return 'false';
      case '>=':
        return `(${left} IS NOT NULL)`;
    }
  }
  return `(${left} ${operator === '!=' ? '<>' : operator} ${literal(value, params)})`;
}


function absent(v: string): string {
  return `(${v} IS NULL OR jsonb_typeof(${v}) = 'null')`;
}

function hasToSql(filter: Extract<CheckedFilter, { kind: 'has' }>, params: SqlParams): string {
  const { field, value } = filter;
  const { declaration } = field;
  if (field.mapKey === undefined && isNameColumn(declaration)) {
    // `name:*` is presence (names are never empty); `name:x` is equality.
    if (value === undefined) return 'true';
    if (value.type === 'null') return 'false';
    return compareJson('name', '=', value, params, 'name');
  }
  const v = jsonPath(declaration.path, params, field.mapKey);
  if (value === undefined) {
    return (
      `(CASE COALESCE(jsonb_typeof(${v}), 'null') WHEN 'null' THEN false WHEN 'string' THEN (${v} #>> '{}') <> ''` +
      ` WHEN 'array' THEN jsonb_array_length(${v}) > 0 WHEN 'object' THEN ${v} <> '{}'::jsonb ELSE true END)`
    );
  }
  if (value.type === 'null') return 'false';
  if (declaration.map === true && field.mapKey === undefined) {
    if (value.type !== 'string') return 'false';
    const entry = `(${v} -> ${params.add(value.value)}::text)`;
    return `(jsonb_typeof(${v}) = 'object' AND NOT ${absent(entry)})`;
  }
  if (declaration.repeated === true) {
    const exact =
      (value.type === 'string' && !value.wildcard) || value.type === 'enum' || value.type === 'bool' || value.type === 'number';
    if (exact) {
      // Containment is element equality for these kinds (jsonb numbers compare numerically) and can
      // use a GIN index.
      return `(jsonb_typeof(${v}) = 'array' AND ${v} @> ${params.add(JSON.stringify([value.value]))}::jsonb)`;
    }
    return (
      `(jsonb_typeof(${v}) = 'array' AND EXISTS (SELECT 1 FROM jsonb_array_elements(${v}) AS element(value)` +
      ` WHERE ${compareJson('element.value', '=', value, params)}))`
    );
  }
  return compareJson(v, '=', value, params, keyColumn(declaration.path, typeForValue(value), field.mapKey));
}

function globalToSql(filter: Extract<CheckedFilter, { kind: 'global' }>, params: SqlParams): string {
  if (filter.fields.length === 0) return 'false';
  const needle = params.add(filter.text.toLowerCase());
  const tests = filter.fields.map((declaration) => {
    const text = isNameColumn(declaration) ? 'name' : stringOf(jsonPath(declaration.path, params));
    return `strpos(lower(${text}), ${needle}::text) > 0`;
  });
  return `(${tests.join(' OR ')})`;
}

/**
 * A checked filter as a boolean SQL condition over the `data` column (and the `name` column). Values
 * are appended to `params`. May yield NULL where the evaluator says false: use it in WHERE, or wrap it
 * in `COALESCE(…, false)`. Leaves stay bare (no COALESCE) so expression indexes match them: AND and
 * OR are monotone, so NULL in a positive position is as good as false; only NOT needs a two-valued
 * operand, which it gets as `NOT COALESCE(…, false)`.
 */
export function filterToSql(filter: CheckedFilter, params: SqlParams): string {
  switch (filter.kind) {
    case 'and':
      return filter.operands.length === 0 ? 'true' : `(${filter.operands.map((f) => filterToSql(f, params)).join(' AND ')})`;
    case 'or':
      return filter.operands.length === 0 ? 'false' : `(${filter.operands.map((f) => filterToSql(f, params)).join(' OR ')})`;
    case 'not':
      return `(NOT COALESCE(${filterToSql(filter.operand, params)}, false))`;
    case 'compare': {
      const { field, operator, value } = filter;
      if (field.mapKey === undefined && isNameColumn(field.declaration)) {
        if (value.type === 'null') return operator === '=' ? 'false' : 'true';
        return compareJson('name', operator, value, params, 'name');
      }
      const v = jsonPath(field.declaration.path, params, field.mapKey);
      if (value.type === 'null') return operator === '=' ? absent(v) : `(NOT ${absent(v)})`;
      return compareJson(v, operator, value, params, keyColumn(field.declaration.path, typeForValue(value), field.mapKey));
    }
    case 'has':
      return hasToSql(filter, params);
    case 'global':
      return globalToSql(filter, params);
  }
}

/** The SQL value a term orders by; NULL when absent (the smallest value). */
export function sortExpression(term: OrderTerm, params: SqlParams): string {
  if (isNameColumn(term.declaration)) return 'name';
  return keyColumn(term.declaration.path, term.declaration.type) ?? typedValue(jsonPath(term.declaration.path, params), term.declaration.type);
}

/** `ORDER BY` items: ascending NULLS FIRST, descending NULLS LAST (null is the smallest value). */
export function orderByToSql(terms: readonly OrderTerm[], params: SqlParams): string {
  return terms.map((term) => `${sortExpression(term, params)} ${term.descending ? 'DESC NULLS LAST' : 'ASC NULLS FIRST'}`).join(', ');
}

/** A keyset position value as a typed placeholder, or undefined for null (or a value of another kind). */
function positionLiteral(term: OrderTerm, value: JsonValue | undefined, params: SqlParams): string | undefined {
  if (value === undefined || value === null) return undefined;
  switch (term.declaration.type) {
    case 'string':
    case 'enum':
    case 'timestamp':
      return typeof value === 'string' ? `${params.add(value)}::text` : undefined;
    case 'bool':
      return typeof value === 'boolean' ? `${params.add(value)}::boolean` : undefined;
    case 'int':
    case 'double':
    case 'duration':
      return typeof value === 'number' && Number.isFinite(value) ? `${params.add(String(value))}::numeric` : undefined;
    case 'int64':
      return typeof value === 'string' && /^-?[0-9]{1,40}$/.test(value) ? `${params.add(value)}::numeric` : undefined;
  }
}

/**
 * Rows strictly after the keyset position `after` under `terms`, as the expansion
 * `t1 > a1 OR (t1 = a1 AND t2 > a2) OR …`, where "after" follows each term's direction and null rule
 * (ascending: null first; descending: null last). A row-value comparison `(t1, t2) > (a1, a2)` cannot
 * express mixed directions or nulls. When the first term is ascending and non-null, a redundant
 * `t1 >= a1` lets an index on t1 bound the scan.
 */
export function keysetToSql(terms: readonly OrderTerm[], after: readonly JsonValue[], params: SqlParams): string {
  const disjuncts: string[] = [];
  const equalities: string[] = [];
  let hint: string | undefined;
  terms.forEach((term, i) => {
    const expression = sortExpression(term, params);
    const value = positionLiteral(term, after[i], params);
    let greater: string;
    if (value === undefined) greater = term.descending ? 'false' : `${expression} IS NOT NULL`;
    else greater = term.descending ? `(${expression} < ${value} OR ${expression} IS NULL)` : `${expression} > ${value}`;
    if (i === 0 && !term.descending && value !== undefined) hint = `${expression} >= ${value}`;
    if (greater !== 'false') disjuncts.push(`(${[...equalities, greater].join(' AND ')})`);
    equalities.push(value === undefined ? `${expression} IS NULL` : `${expression} = ${value}`);
  });
  if (disjuncts.length === 0) return 'false';
  const condition = `COALESCE(${disjuncts.join(' OR ')}, false)`;
  return hint === undefined ? `(${condition})` : `(${hint} AND ${condition})`;
}

/**
 * For a keyset position whose first term is descending with a non-null value: the two ranges that
 * hold every row after the position, in order — values up to the position's (`upTo`), then the nulls
 * (`nulls`; last under DESC NULLS LAST). `keysetToSql` must stay in the query; these only narrow it.
 * PostgreSQL cannot start an index scan at the position from the `< a OR IS NULL` disjunction that
 * keysetToSql needs, so without this a deep descending page reads every row before it; the adapter
 * queries the two ranges one after the other instead. Call after keysetToSql (they share placeholders).
 */
export function descendingHeadRanges(terms: readonly OrderTerm[], after: readonly JsonValue[], params: SqlParams): { upTo: string; nulls: string | undefined } | undefined {
  const first = terms[0];
  if (first === undefined || !first.descending) return undefined;
  const value = positionLiteral(first, after[0], params);
  if (value === undefined) return undefined;
  const expression = sortExpression(first, params);
  return { upTo: `${expression} <= ${value}`, nulls: expression === 'name' ? undefined : `${expression} IS NULL` };
}
