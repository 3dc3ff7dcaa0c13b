import { describe, expect, it } from 'vitest';
import { Code, GatewayError } from '../../errors/index.js';
import type { FieldDeclarations } from '../fields.js';
import { declarations, expectFilterError, invalid } from '../test-fixtures.js';
import type { CheckedFilter } from './ast.js';
import { evaluateFilter } from './evaluator.js';
import { parseFilter } from './parse-filter.js';

const parse = (text: string): CheckedFilter | undefined => parseFilter(text, declarations);
const d = declarations;

/** A compact rendering of a checked tree: field paths, operators and normalised values. */
function show(filter: CheckedFilter | undefined): string {
  if (filter === undefined) return '∅';
  switch (filter.kind) {
    case 'and':
      return `AND(${filter.operands.map(show).join(', ')})`;
    case 'or':
      return `OR(${filter.operands.map(show).join(', ')})`;
    case 'not':
      return `NOT(${show(filter.operand)})`;
    case 'global':
      return `GLOBAL(${JSON.stringify(filter.text)})`;
    case 'compare':
    case 'has': {
      const field = filter.field.declaration.path.join('.') + (filter.field.mapKey !== undefined ? `[${filter.field.mapKey}]` : '');
      const op = filter.kind === 'has' ? ':' : filter.operator;
      return `${field}${op}${filter.value ? JSON.stringify(filter.value) : '*'}`;
    }
  }
}

describe('parseFilter: structure', () => {
  it('returns undefined for empty and blank filters', () => {
    expect(parse('')).toBeUndefined();
    expect(parse('   \t\n')).toBeUndefined();
  });

  it('applies AIP-160 precedence: OR over sequence over AND', () => {
    expect(show(parse('display_name = a AND state = READY OR state = FAILED'))).toBe(
      'AND(displayName={"type":"string","value":"a","wildcard":false}, OR(state={"type":"enum","value":"READY"}, state={"type":"enum","value":"FAILED"}))',
    );
    expect(show(parse('a b OR c'))).toBe('AND(GLOBAL("a"), OR(GLOBAL("b"), GLOBAL("c")))');
  });

  it('flattens nested conjunctions and disjunctions and drops parentheses', () => {
    expect(show(parse('a AND (b AND c) d'))).toBe('AND(GLOBAL("a"), GLOBAL("b"), GLOBAL("c"), GLOBAL("d"))');
    expect(show(parse('(a OR (b OR c))'))).toBe('OR(GLOBAL("a"), GLOBAL("b"), GLOBAL("c"))');
    expect(show(parse('((a))'))).toBe('GLOBAL("a")');
  });

  it('negates with NOT and -', () => {
    expect(show(parse('NOT state = READY'))).toBe('NOT(state={"type":"enum","value":"READY"})');
    expect(show(parse('-tags:x'))).toBe('NOT(tags:{"type":"string","value":"x","wildcard":false})');
    expect(show(parse('-foo'))).toBe('NOT(GLOBAL("foo"))');
  });

  it('makes bare literals global restrictions over non-repeated, non-map string fields', () => {
    const filter = parse('"hello world"');
    expect(filter).toMatchObject({ kind: 'global', text: 'hello world' });
    if (filter?.kind !== 'global') throw new Error('expected global');
    expect(filter.fields.map((f) => f.path.join('.'))).toEqual(['name', 'displayName', 'description', 'baseModel']);
    expect(parse('llama.v3')).toMatchObject({ kind: 'global', text: 'llama.v3' });
    expect(parse('30')).toMatchObject({ kind: 'global', text: '30' });
  });

  it('records the position of each field', () => {
    const filter = parse('state = READY AND  min_replica_count > 1');
    expect(filter).toMatchObject({ kind: 'and', operands: [{ field: { position: 0 } }, { field: { position: 19 } }] });
  });
});

describe('parseFilter: field names', () => {
  it('accepts snake_case and camelCase, nested and aliased', () => {
    for (const text of ['base_model = x', 'baseModel = x']) expect(parse(text)).toMatchObject({ field: { declaration: d.baseModel } });
    for (const text of ['autoscaling_policy.scale_up_window > 30s', 'autoscalingPolicy.scaleUpWindow > 30s']) {
      expect(parse(text)).toMatchObject({ field: { declaration: d['autoscalingPolicy.scaleUpWindow'] } });
    }
    const aliased: FieldDeclarations = { ...declarations, createdTime: declarations.createTime as NonNullable<typeof declarations.createTime> };
    expect(parseFilter('created_time > "2024-01-01T00:00:00Z"', aliased)).toMatchObject({ field: { declaration: { path: ['createTime'] } } });
  });

  it('rejects unknown fields naming them and their position', () => {
    const error = invalid(() => parse('state = READY AND colour = "red"'));
    expect(error.message).toBe('invalid filter at position 18: unknown field "colour"');
    expect(error.reason).toBe('INVALID_FILTER');
    expect(error.field).toBe('filter');
    expectFilterError(() => parse('autoscaling_policy.nope = 1s'), 0, '"autoscaling_policy.nope"');
    expectFilterError(() => parse('autoscaling_policy = 1s'), 0, 'unknown field');
    expectFilterError(() => parse('constructor = 1'), 0, 'unknown field "constructor"');
    expectFilterError(() => parse('__proto__ = 1'), 0, 'unknown field "__proto__"');
    expectFilterError(() => parse('labels.a.b = 1'), 0, 'unknown field "labels.a.b"');
  });
});

describe('parseFilter: values by type', () => {
  it('strings: quoted, unquoted, escaped, wildcards only for = != :', () => {
    expect(parse('display_name = "a \\"b\\""')).toMatchObject({ value: { type: 'string', value: 'a "b"', wildcard: false } });
    expect(parse("display_name = 'x'")).toMatchObject({ value: { value: 'x' } });
    expect(parse('display_name = foo-bar')).toMatchObject({ value: { value: 'foo-bar' } });
    expect(parse('display_name = 42')).toMatchObject({ value: { type: 'string', value: '42' } });
    expect(parse('display_name = "llama*"')).toMatchObject({ operator: '=', value: { value: 'llama*', wildcard: true } });
    expect(parse('display_name != *b*')).toMatchObject({ operator: '!=', value: { value: '*b*', wildcard: true } });
    expect(parse('display_name : "a*"')).toMatchObject({ kind: 'has', value: { wildcard: true } });
    expect(parse('display_name < "a*"')).toMatchObject({ operator: '<', value: { value: 'a*', wildcard: false } });
    expect(parse('display_name >= b')).toMatchObject({ operator: '>=', value: { value: 'b' } });
  });

  it('enums: checked against allowed values, listed in the error', () => {
    expect(parse('state = READY')).toMatchObject({ value: { type: 'enum', value: 'READY' } });
    expect(parse('state != "FAILED"')).toMatchObject({ value: { type: 'enum', value: 'FAILED' } });
    const error = invalid(() => parse('state = RUNNING'));
    expect(error.message).toContain('at position 8:');
    expect(error.message).toContain('RUNNING');
    expect(error.message).toContain('STATE_UNSPECIFIED, CREATING, READY, DELETING, FAILED, UPDATING, DELETED');
    expectFilterError(() => parse('state = ready'), 8, 'allowed values');
    expectFilterError(() => parse('state < READY'), 6, "'<' cannot be used");
  });

  it('booleans', () => {
    expect(parse('enable_addons = true')).toMatchObject({ value: { type: 'bool', value: true } });
    expect(parse('enableAddons != false')).toMatchObject({ operator: '!=', value: { type: 'bool', value: false } });
    expectFilterError(() => parse('enable_addons = yes'), 16, 'true or false');
    expectFilterError(() => parse('enable_addons > false'), 14, "'>' cannot be used");
  });

  it('numbers: integers, floats, negatives, exponents', () => {
    expect(parse('min_replica_count >= 2')).toMatchObject({ operator: '>=', value: { type: 'number', value: 2 } });
    expect(parse('temperature < 0.75')).toMatchObject({ value: { type: 'number', value: 0.75 } });
    expect(parse('temperature > -1.5')).toMatchObject({ value: { type: 'number', value: -1.5 } });
    expect(parse('temperature > -2')).toMatchObject({ value: { type: 'number', value: -2 } });
    expect(parse('temperature = 1e-3')).toMatchObject({ value: { type: 'number', value: 0.001 } });
    expect(parse('temperature = 2.5E2')).toMatchObject({ value: { type: 'number', value: 250 } });
    expectFilterError(() => parse('temperature = hot'), 14, 'expects a number');
    expectFilterError(() => parse('temperature = 1.2.3'), 14, 'expects a number');
    expectFilterError(() => parse('temperature = 1e999'), 14, 'expects a number');
  });

  it('int64: canonical decimal string, range checked', () => {
    expect(parse('example_count > 007')).toMatchObject({ value: { type: 'int64', value: '7' } });
    expect(parse('example_count = "9223372036854775807"')).toMatchObject({ value: { type: 'int64', value: '9223372036854775807' } });
    expect(parse('example_count > -9223372036854775808')).toMatchObject({ value: { type: 'int64', value: '-9223372036854775808' } });
    expect(parse('example_count = -0')).toMatchObject({ value: { type: 'int64', value: '0' } });
    expectFilterError(() => parse('example_count = 9223372036854775808'), 16, '64-bit integer');
    expectFilterError(() => parse('example_count = 1.5'), 16, '64-bit integer');
  });

  it('timestamps: RFC 3339 in quotes or timestamp(), normalised to UTC ms', () => {
    expect(parse('create_time > "2024-05-01T12:00:00Z"')).toMatchObject({
      value: { type: 'timestamp', value: '2024-05-01T12:00:00.000Z', epochMs: Date.UTC(2024, 4, 1, 12) },
    });
    expect(parse('create_time <= "2024-05-01T14:30:00.123456+02:00"')).toMatchObject({
      value: { value: '2024-05-01T12:30:00.123Z', epochMs: Date.UTC(2024, 4, 1, 12, 30, 0, 123) },
    });
    expect(parse('create_time >= timestamp("2024-02-29T00:00:00-00:30")')).toMatchObject({
      value: { value: '2024-02-29T00:30:00.000Z' },
    });
    expectFilterError(() => parse('create_time > "2023-02-29T00:00:00Z"'), 14, 'RFC 3339');
    expectFilterError(() => parse('create_time > "2024-05-01"'), 14, 'RFC 3339');
    expectFilterError(() => parse('create_time > yesterday'), 14, 'RFC 3339');
    expectFilterError(() => parse('create_time > 2024-05-01T12:00:00Z'), 27, 'quote values that contain');
  });

  it('durations: quoted, unquoted, fractional, negative, duration()', () => {
    const f = 'autoscaling_policy.scale_up_window';
    expect(parse(`${f} = "30s"`)).toMatchObject({ value: { type: 'duration', seconds: 30 } });
    expect(parse(`${f} > 30s`)).toMatchObject({ value: { seconds: 30 } });
    expect(parse(`${f} < 1.5s`)).toMatchObject({ value: { seconds: 1.5 } });
    expect(parse(`${f} > -0.25s`)).toMatchObject({ value: { seconds: -0.25 } });
    expect(parse(`${f} >= duration("600s")`)).toMatchObject({ value: { seconds: 600 } });
    expectFilterError(() => parse(`${f} > 30`), 37, 'duration');
    expectFilterError(() => parse(`${f} > 5m`), 37, 'duration');
  });

  it('null: only with = and !=, compares absence', () => {
    expect(parse('display_name = null')).toMatchObject({ kind: 'compare', operator: '=', value: { type: 'null' } });
    expect(parse('tags != null')).toMatchObject({ kind: 'compare', operator: '!=', value: { type: 'null' } });
    expect(parse('display_name = "null"')).toMatchObject({ value: { type: 'string', value: 'null' } });
    expectFilterError(() => parse('min_replica_count > null'), 18, 'null can only');
    expectFilterError(() => parse('tags:null'), 5, 'null cannot');
  });

  it('functions: only timestamp() and duration(), with one quoted string, of the right type', () => {
    expectFilterError(() => parse('create_time > now()'), 14, 'unknown function "now"');
    expectFilterError(() => parse('create_time > a.b("x")'), 14, 'unknown function "a.b"');
    expectFilterError(() => parse('create_time > timestamp(2024)'), 14, 'one quoted string');
    expectFilterError(() => parse('create_time > timestamp("a", "b")'), 14, 'one quoted string');
    expectFilterError(() => parse('create_time > duration("1s")'), 14, 'duration() cannot be compared');
    expectFilterError(() => parse('display_name = timestamp("2024-01-01T00:00:00Z")'), 15, 'timestamp() cannot be compared');
    expectFilterError(() => parse('timestamp("2024-01-01T00:00:00Z") < create_time'), 0, 'must be a field');
    expectFilterError(() => parse('a AND now()'), 6, 'not a restriction');
  });

  it('rejects a parenthesised value', () => {
    expectFilterError(() => parse('display_name = (a OR b)'), 15, 'parenthesised');
  });
});

describe('parseFilter: has operator, repeated and map fields', () => {
  it('membership on repeated fields; = on them is rejected', () => {
    expect(parse('tags:gpu')).toMatchObject({ kind: 'has', value: { type: 'string', value: 'gpu' } });
    expect(parse('placement.regions:US_IOWA_1')).toMatchObject({ kind: 'has', value: { type: 'enum', value: 'US_IOWA_1' } });
    expectFilterError(() => parse('placement.regions:MARS'), 18, 'allowed values');
    expectFilterError(() => parse('tags = gpu'), 5, 'repeated field');
  });

  it('presence with :*', () => {
    const filter = parse('display_name:*');
    expect(filter).toMatchObject({ kind: 'has' });
    expect(filter).not.toHaveProperty('value');
    expect(parse('tags:*')).toMatchObject({ kind: 'has' });
    expect(parse('display_name:"*"')).toMatchObject({ kind: 'has', value: { value: '*', wildcard: true } });
  });

  it('map keys: labels.env = x and labels:env', () => {
    expect(parse('labels.env = prod')).toMatchObject({ kind: 'compare', field: { mapKey: 'env' }, value: { value: 'prod' } });
    expect(parse('labels.team_name = x')).toMatchObject({ field: { mapKey: 'team_name' } });
    expect(parse('labels."a.b" = x')).toMatchObject({ field: { mapKey: 'a.b' } });
    expect(parse('labels:env')).toMatchObject({ kind: 'has', value: { type: 'string', value: 'env', wildcard: false } });
    expect(parse('labels.env:*')).toMatchObject({ kind: 'has', field: { mapKey: 'env' } });
    expectFilterError(() => parse('labels = x'), 0, 'map field');
    expectFilterError(() => parse('labels:timestamp("2024-01-01T00:00:00Z")'), 7, 'takes a key');
  });

  it('has on scalars of other types', () => {
    expect(parse('state:READY')).toMatchObject({ kind: 'has', value: { type: 'enum', value: 'READY' } });
    expect(parse('min_replica_count:3')).toMatchObject({ kind: 'has', value: { type: 'number', value: 3 } });
  });
});

describe('parseFilter: limits', () => {
  it('rejects filters longer than 2048 characters', () => {
    const ok = `display_name = "${'x'.repeat(2048 - 17)}"`;
    expect(ok.length).toBe(2048);
    expect(parse(ok)).toBeDefined();
    expectFilterError(() => parse(`${ok} `), 2048, 'longer than 2048');
    expect(parse(`display_name = "${'😀'.repeat(1000)}"`)).toBeDefined();
  });

  it('rejects more than 32 levels of nesting and more than 256 restrictions', () => {
    expectFilterError(() => parse(`${'('.repeat(33)}a${')'.repeat(33)}`), 32, 'deeper');
    const many = (n: number): string => Array.from({ length: n }, () => 'state=READY').join(' OR ');
    expect(parse(many(100))).toMatchObject({ kind: 'or' });
    expect(parse(Array(256).fill('a').join(' '))).toMatchObject({ kind: 'and' });
    expectFilterError(() => parse(Array(257).fill('a').join(' ')), 512, 'more than 256');
  });
});

describe('parseFilter: fuzz', () => {
  const alphabet = [
    'a', 'state', 'READY', 'tags', 'labels', '.', ' ', ' ', '(', ')', '=', '!=', '<', '>=', ':', '-', '*', '"', "'", '\\',
    'AND', 'OR', 'NOT', 'null', 'true', '1', '1.5', '30s', ',', 'timestamp(', 'duration(', '"2024-01-01T00:00:00Z"', '!', 'é', '\u0000',
    'create_time', 'example_count', 'min_replica_count', 'autoscaling_policy.scale_up_window', 'labels.env', '__proto__',
  ];
  let seed = 12345;
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };

  it('never throws anything but INVALID_ARGUMENT, and checked results evaluate', () => {
    const data = { name: 'x', state: 'READY', tags: ['a'], labels: { env: 'p' }, createTime: '2024-01-01T00:00:00Z', exampleCount: '5' };
    let parsed = 0;
    for (let i = 0; i < 5000; i++) {
      const length = 1 + random(12);
      const text = Array.from({ length }, () => alphabet[random(alphabet.length)]).join('');
      try {
        const filter = parse(text);
        if (filter) {
          parsed++;
          expect(typeof evaluateFilter(filter, data)).toBe('boolean');
        }
      } catch (error) {
        if (!(error instanceof GatewayError) || error.code !== Code.INVALID_ARGUMENT) {
          throw new Error(`filter ${JSON.stringify(text)} threw ${String(error)}`);
        }
        expect(error.message).toMatch(/^invalid filter at position \d+: /);
      }
    }
    expect(parsed).toBeGreaterThan(100);
  });

  it('survives random characters', () => {
    for (let i = 0; i < 3000; i++) {
      const text = Array.from({ length: random(40) }, () => String.fromCharCode(random(0x3000))).join('');
      try {
        parse(text);
      } catch (error) {
        expect(error).toBeInstanceOf(GatewayError);
        expect((error as GatewayError).code).toBe(Code.INVALID_ARGUMENT);
      }
    }
  });
});
