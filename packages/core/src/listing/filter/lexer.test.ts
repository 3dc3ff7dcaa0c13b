import { describe, expect, it } from 'vitest';
import { expectFilterError } from '../test-fixtures.js';
import { lex } from './lexer.js';

const types = (text: string): string[] => lex(text).map((token) => token.type);

describe('lex', () => {
  it('recognises every operator and punctuation', () => {
    expect(types('( ) , . = != < <= > >= : -')).toEqual([
      'lparen', 'rparen', 'comma', 'dot', 'equals', 'notEquals', 'lessThan', 'lessEquals',
      'greaterThan', 'greaterEquals', 'has', 'minus', 'end',
    ]);
  });

  it('records positions and whitespace', () => {
    const tokens = lex('a  >=\t-5');
    expect(tokens.map((t) => [t.type, t.position, t.spaceBefore])).toEqual([
      ['text', 0, false],
      ['greaterEquals', 3, true],
      ['minus', 6, true],
      ['text', 7, false],
      ['end', 8, false],
    ]);
  });

  it('recognises uppercase keywords only', () => {
    expect(types('AND OR NOT and or not ANDY')).toEqual(['and', 'or', 'not', 'text', 'text', 'text', 'text', 'end']);
  });

  it('keeps hyphens, stars and digits inside text but splits at dots and operators', () => {
    expect(lex('foo-bar*x 2024-01-01 a.b c=d').map((t) => t.raw)).toEqual(['foo-bar*x', '2024-01-01', 'a', '.', 'b', 'c', '=', 'd', '']);
  });

  it('unescapes strings in both quote styles', () => {
    const [double, single] = lex(String.raw`"a\"b\\c\n\t\u0041" 'it\'s'`);
    expect(double?.type).toBe('string');
    expect(double?.value).toBe('a"b\\c\n\tA');
    expect(double?.raw).toBe(String.raw`"a\"b\\c\n\t\u0041"`);
    expect(single?.value).toBe("it's");
  });

  it('keeps the other quote and special characters inside a string', () => {
    expect(lex(`"it's (a) = b: c"`)[0]?.value).toBe("it's (a) = b: c");
  });

  it('rejects unterminated strings at the opening quote', () => {
    expectFilterError(() => lex('a = "abc'), 4, 'unterminated string');
    expectFilterError(() => lex("a = 'abc\\'"), 4, 'unterminated string');
  });

  it('rejects unknown escapes at the backslash', () => {
    expectFilterError(() => lex('a = "x\\q"'), 6, 'invalid escape');
    expectFilterError(() => lex('a = "x\\u12"'), 6, 'invalid escape');
  });

  it('rejects a lone "!"', () => {
    expectFilterError(() => lex('a ! b'), 2, "'!'");
  });

  it('ends with an end token at the text length', () => {
    expect(lex('  ').at(-1)).toMatchObject({ type: 'end', position: 2 });
  });

  it('refuses NUL, raw or escaped, anywhere in the text', () => {
    expectFilterError(() => lex('a = "x\u0000y"'), 6, 'NUL');
    expectFilterError(() => lex('a = "x\\u0000y"'), 6, 'NUL');
    expectFilterError(() => lex('a\u0000 = 1'), 1, 'NUL');
    expect(lex('a = "x\\u0041"')[2]?.value).toBe('xA');
  });
});
