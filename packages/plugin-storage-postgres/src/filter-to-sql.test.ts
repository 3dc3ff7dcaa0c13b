import { describe, expect, it } from 'vitest';
import { parseFilter, parseOrderBy, type CheckedFilter } from '@berth/core';
import { contractDeclarations } from '@berth/core/testing';
import { SqlParams, descendingHeadRanges, filterToSql, keyColumn, keysetToSql, orderByToSql, typedValue, wildcardToLike } from './filter-to-sql.js';
import { BASE_MODEL_KEY, CREATE_TIME_SORT_KEY, STATE_KEY } from './migrations.js';

/** Every quoted string literal ('…') in generated SQL: only fixed fragments may appear. */
function stringLiterals(sql: string): string[] {
  return [...sql.matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1] ?? '');
}

const FIXED_LITERALS = new Set([
  'string', 'number', 'boolean', 'array', 'object', 'null', '{}', '', 's', '\\',
  '{name}', '{displayName}', '{state}', '{public}', '{replicaCount}', '{score}', '{parameterCount}', '{createTime}',
  '{autoscalingPolicy,scaleUpWindow}', '{tags}', '{labels}', '{baseModel}',
  '^-?[0-9]{1,40}$', '^-?[0-9]{1,12}(\\.[0-9]{1,9})?s$',
  '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\\.[0-9]{3}Z$',
]);

function compile(text: string): { sql: string; values: unknown[] } {
  const filter = parseFilter(text, contractDeclarations) as CheckedFilter;
  const params = new SqlParams(['parent', 'collection']);
  return { sql: filterToSql(filter, params), values: params.values };
}

describe('filterToSql', () => {
  const hostile = [
    `display_name = "x'; DROP TABLE berth_resources; --"`,
    `display_name = "Robert'); --*"`,
    `labels.env = "a'b"`,
    `labels:"it's"`,
    `tags:"o'neil"`,
    `"bobby' OR '1'='1"`,
    `state = READY AND parameter_count > 9007199254740993`,
    `create_time > "2024-01-01T00:00:00Z" OR autoscaling_policy.scale_up_window < "1.5s"`,
    `score >= 0.125 AND replica_count != 12345 AND public = false`,
    `display_name = "100%_x*"`,
  ];

  it.each(hostile)('never inlines a value: %s', (text) => {
    const { sql, values } = compile(text);
    for (const literal of stringLiterals(sql)) expect(FIXED_LITERALS.has(literal), `unexpected literal '${literal}' in ${sql}`).toBe(true);
    // No digits of user numbers outside placeholders and fixed constants either.
    for (const number of ['9007199254740993', '12345', '0.125']) expect(sql).not.toContain(number);
    expect(values.slice(0, 2)).toEqual(['parent', 'collection']);
    expect(values.length).toBeGreaterThan(2);
  });

  it('passes values as parameters, with LIKE patterns escaped', () => {
    const { sql, values } = compile('display_name = "100%_x*"');
    expect(values).toContain('100\\%\\_x%');
    expect(sql).toContain("LIKE $3::text ESCAPE '\\'");
  });

  it('reuses one placeholder for a repeated value', () => {
    const { values } = compile('state = READY OR base_model = "READY"');
    expect(values.filter((v) => v === 'READY')).toHaveLength(1);
  });

  it('parameterises map keys and non-identifier path segments', () => {
    const params = new SqlParams();
    const filter = parseFilter('labels.env = "prod"', contractDeclarations) as CheckedFilter;
    const sql = filterToSql(filter, params);
    expect(params.values).toEqual(['env', 'prod']);
    expect(sql).toContain('-> $1::text');
  });

  it('negates with a two-valued operand', () => {
    const { sql } = compile('NOT state = READY');
    expect(sql.startsWith('(NOT COALESCE(')).toBe(true);
  });
});

describe('wildcardToLike', () => {
  it('escapes LIKE metacharacters and maps * to %', () => {
    expect(wildcardToLike('a*b%c_d\\e*')).toBe('a%b\\%c\\_d\\\\e%');
  });
});

describe('orderBy and keyset', () => {
  it('orders ascending nulls first and descending nulls last', () => {
    const terms = parseOrderBy('state desc, create_time', contractDeclarations, 'create_time');
    const sql = orderByToSql(terms, new SqlParams());
    expect(sql).toMatch(/DESC NULLS LAST, .* ASC NULLS FIRST, name ASC NULLS FIRST$/);
  });

  it('expands a mixed-direction position with nulls, all values as parameters', () => {
    const terms = parseOrderBy('state desc, parameter_count, score', contractDeclarations, 'create_time');
    const params = new SqlParams();
    const sql = keysetToSql(terms, ['READY', null, 0.5, 'accounts/a/models/m'], params);
    expect(params.values).toEqual(['READY', '0.5', 'accounts/a/models/m']);
    expect(sql).not.toContain('READY');
    expect(sql).not.toContain('accounts/');
    expect(sql).toContain('IS NULL');
  });

  it('bounds the first ascending term for the index', () => {
    const terms = parseOrderBy('', contractDeclarations, 'create_time');
    const sql = keysetToSql(terms, ['2024-01-01T00:00:00.000Z', 'accounts/a/models/m'], new SqlParams());
    expect(sql.startsWith(`(create_time_key >= $1::text AND `)).toBe(true);
  });

  it('splits a descending position into the range up to it and the nulls', () => {
    const terms = parseOrderBy('create_time desc', contractDeclarations, '');
    const params = new SqlParams();
    const keyset = keysetToSql(terms, ['2024-01-01T00:00:00.000Z', 'accounts/a/models/m'], params);
    const ranges = descendingHeadRanges(terms, ['2024-01-01T00:00:00.000Z', 'accounts/a/models/m'], params);
    expect(keyset).toContain('$1::text');
    expect(ranges).toEqual({ upTo: 'create_time_key <= $1::text', nulls: 'create_time_key IS NULL' });
    expect(params.values).toEqual(['2024-01-01T00:00:00.000Z', 'accounts/a/models/m']);
    expect(descendingHeadRanges(terms, [null, 'accounts/a/models/m'], new SqlParams())).toBeUndefined();
    expect(descendingHeadRanges(parseOrderBy('create_time', contractDeclarations, ''), ['2024-01-01T00:00:00.000Z', 'x'], new SqlParams())).toBeUndefined();
  });

  it('names the generated key columns only for the types they hold', () => {
    expect(keyColumn(['state'], 'enum')).toBe('state_key');
    expect(keyColumn(['baseModel'], 'string')).toBe('base_model_key');
    expect(keyColumn(['createTime'], 'timestamp')).toBe('create_time_key');
    expect(keyColumn(['createTime'], 'string')).toBeUndefined();
    expect(keyColumn(['labels', 'state'], 'string')).toBeUndefined();
    expect(keyColumn(['state'], 'string', 'k')).toBeUndefined();
  });

  it('generates exactly the expressions the migrations index', () => {
    expect(typedValue(`(data #> '{createTime}')`, 'timestamp')).toBe(CREATE_TIME_SORT_KEY);
    expect(typedValue(`(data #> '{state}')`, 'enum')).toBe(STATE_KEY);
    expect(typedValue(`(data #> '{baseModel}')`, 'string')).toBe(BASE_MODEL_KEY);
  });
});
