import { describe, expect, it } from 'vitest';
import { expectFilterError } from '../test-fixtures.js';
import type { Arg, Expression } from './expression.js';
import { parse } from './parser.js';

/** Compact rendering of the raw tree, to assert shapes and precedence. */
function show(expression: Expression | Arg | undefined): string {
  if (expression === undefined) return '∅';
  switch (expression.kind) {
    case 'and':
      return `AND(${expression.operands.map(show).join(', ')})`;
    case 'sequence':
      return `SEQ(${expression.operands.map(show).join(', ')})`;
    case 'or':
      return `OR(${expression.operands.map(show).join(', ')})`;
    case 'not':
      return `NOT(${show(expression.operand)})`;
    case 'composite':
      return `(${show(expression.expression)})`;
    case 'member':
      return (expression.negative ? '-' : '') + [expression.value, ...expression.fields].map((p) => (p.quoted ? JSON.stringify(p.text) : p.text)).join('.');
    case 'function':
      return `${expression.name}(${expression.args.map(show).join(', ')})`;
    case 'restriction':
      return expression.comparator
        ? `${show(expression.comparable)}${expression.comparator.operator}${show(expression.arg)}`
        : show(expression.comparable);
  }
}

const p = (text: string): string => show(parse(text));

describe('parse', () => {
  it('returns undefined for empty or blank text', () => {
    expect(parse('')).toBeUndefined();
    expect(parse(' \n\t ')).toBeUndefined();
  });

  it('parses restrictions with every comparator', () => {
    for (const op of ['=', '!=', '<', '<=', '>', '>=', ':']) expect(p(`a ${op} 1`)).toBe(`a${op}1`);
    expect(p('a=1')).toBe('a=1');
  });

  it('gives OR precedence over AND and over implicit AND', () => {
    expect(p('a AND b OR c')).toBe('AND(a, OR(b, c))');
    expect(p('a OR b AND c')).toBe('AND(OR(a, b), c)');
    expect(p('a b OR c d')).toBe('SEQ(a, OR(b, c), d)');
    expect(p('a OR b OR c')).toBe('OR(a, b, c)');
  });

  it('gives implicit AND precedence over explicit AND', () => {
    expect(p('a b AND c')).toBe('AND(SEQ(a, b), c)');
  });

  it('parses negation with NOT and -', () => {
    expect(p('NOT a = 1')).toBe('NOT(a=1)');
    expect(p('-a:b')).toBe('NOT(a:b)');
    expect(p('NOT (a OR b)')).toBe('NOT((OR(a, b)))');
    expect(p('NOT a OR b')).toBe('OR(NOT(a), b)');
    expect(p('-(a)')).toBe('NOT((a))');
  });

  it('parses parentheses', () => {
    expect(p('(a AND b) OR c')).toBe('OR((AND(a, b)), c)');
    expect(p('((a))')).toBe('((a))');
  });

  it('parses members, quoted segments and keyword segments', () => {
    expect(p('a.b.c = "x"')).toBe('a.b.c="x"');
    expect(p('labels."my key" = x')).toBe('labels."my key"=x');
    expect(p('a.AND = 1')).toBe('a.AND=1');
  });

  it('parses numbers with dots and negative values', () => {
    expect(p('a > 1.5')).toBe('a>1.5');
    expect(p('a > -1.5e3')).toBe('a>-1.5e3');
    expect(p('a = 2.5s')).toBe('a=2.5s');
  });

  it('parses function calls', () => {
    expect(p('t > timestamp("2024-01-01T00:00:00Z")')).toBe('t>timestamp("2024-01-01T00:00:00Z")');
    expect(p('x = f.g(1, "a", (b))')).toBe('x=f.g(1, "a", (b))');
    expect(p('x = f()')).toBe('x=f()');
  });

  it('treats a parenthesis after whitespace as a new term, not a call', () => {
    expect(p('a (b)')).toBe('SEQ(a, (b))');
  });

  it('records positions', () => {
    const tree = parse('x = 1 AND NOT y:z');
    expect(tree).toMatchObject({ kind: 'and', position: 0, operands: [{ position: 0 }, { kind: 'not', position: 10, operand: { position: 14 } }] });
  });

  it('reports syntax errors with positions', () => {
    expectFilterError(() => parse('a ='), 3, 'expected a value');
    expectFilterError(() => parse('a = 1 AND'), 9, 'after AND');
    expectFilterError(() => parse('a OR'), 4, 'after OR');
    expectFilterError(() => parse('(a = 1'), 6, "')'");
    expectFilterError(() => parse('a = 1)'), 5, "unexpected ')'");
    expectFilterError(() => parse('()'), 1, 'empty parentheses');
    expectFilterError(() => parse('NOT'), 3, 'expected a restriction');
    expectFilterError(() => parse('NOT NOT a'), 4, 'expected a restriction');
    expectFilterError(() => parse('- a'), 0, "'-'");
    expectFilterError(() => parse('a = - 1'), 4, "'-'");
    expectFilterError(() => parse('a. b = 1'), 3, "after '.'");
    expectFilterError(() => parse('a . b'), 2, "unexpected '.'");
    expectFilterError(() => parse('AND a'), 0, "found 'AND'");
    expectFilterError(() => parse('a = = 1'), 4, 'expected a value');
    expectFilterError(() => parse('"f"(1) = 1'), 0, 'quoted');
    expectFilterError(() => parse('a = f(1,)'), 8, 'expected a field or value');
  });

  it('limits nesting depth to 32', () => {
    const nested = (n: number): string => `${'('.repeat(n)}a${')'.repeat(n)}`;
    expect(parse(nested(32))).toBeDefined();
    expectFilterError(() => parse(nested(33)), 32, 'deeper than 32');
    expect(parse('x = ' + 'f('.repeat(32) + '1' + ')'.repeat(32))).toBeDefined();
    expectFilterError(() => parse('x = ' + 'f('.repeat(33) + '1' + ')'.repeat(33)), 4 + 32 * 2 + 1, 'deeper than 32');
    expectFilterError(() => parse('(x = ' + 'f('.repeat(32) + '1' + ')'.repeat(33)), 5 + 31 * 2 + 1, 'deeper than 32');
  });

  it('limits the number of restrictions to 256', () => {
    const terms = (n: number): string => Array.from({ length: n }, (_, i) => `a${i}`).join(' ');
    expect(parse(terms(256))).toBeDefined();
    const text = terms(257);
    expectFilterError(() => parse(text), text.lastIndexOf('a256'), 'more than 256');
  });
});
