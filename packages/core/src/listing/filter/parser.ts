/**
 * Recursive-descent parser for the AIP-160 filter grammar (https://google.aip.dev/160), one function per
 * EBNF rule, quoted above each. Precedence follows the grammar: OR binds tighter than the implicit AND of
 * a sequence, which binds tighter than an explicit AND. Depth and term limits are enforced while parsing,
 * so a hostile filter cannot exhaust the stack.
 */
import { filterError } from './errors.js';
import type { Arg, Comparable, Comparator, Composite, Expression, Literal, Member } from './expression.js';
import { lex } from './lexer.js';
import { FILTER_LIMITS } from './limits.js';
import { describeToken, type Token, type TokenType } from './token.js';

const COMPARATORS: Partial<Record<TokenType, Comparator>> = {
  equals: '=',
  notEquals: '!=',
  lessThan: '<',
  lessEquals: '<=',
  greaterThan: '>',
  greaterEquals: '>=',
  has: ':',
};

/** Tokens that can begin a term (and so continue a sequence by juxtaposition). */
const TERM_START = new Set<TokenType>(['text', 'string', 'not', 'minus', 'lparen']);

class Parser {
  private index = 0;
  private depth = 0;
  private terms = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.index + offset, this.tokens.length - 1)] as Token;
  }

  private advance(): Token {
    const token = this.peek();
    if (this.index < this.tokens.length - 1) this.index++;
    return token;
  }

  private expect(type: TokenType, what: string): Token {
    const token = this.peek();
    if (token.type !== type) throw filterError(token.position, `expected ${what}, found ${describeToken(token)}`);
    return this.advance();
  }

  private enter(position: number): void {
    if (++this.depth > FILTER_LIMITS.maxDepth) {
      throw filterError(position, `filter nests deeper than ${FILTER_LIMITS.maxDepth} levels`);
    }
  }

  /** filter : [expression] */
  parseFilter(): Expression | undefined {
    if (this.peek().type === 'end') return undefined;
    const expression = this.parseExpression();
    const rest = this.peek();
    if (rest.type !== 'end') {
      const hint = rest.type === 'has' ? " (quote values that contain ':', e.g. timestamps)" : '';
      throw filterError(rest.position, `unexpected ${describeToken(rest)}${hint}`);
    }
    return expression;
  }

  /** expression : sequence {WS AND WS sequence} */
  private parseExpression(): Expression {
    const position = this.peek().position;
    const operands = [this.parseSequence()];
    while (this.peek().type === 'and') {
      this.advance();
      if (!TERM_START.has(this.peek().type)) {
        throw filterError(this.peek().position, `expected a restriction after AND, found ${describeToken(this.peek())}`);
      }
      operands.push(this.parseSequence());
    }
    return operands.length === 1 ? (operands[0] as Expression) : { kind: 'and', operands, position };
  }

  /** sequence : factor {WS factor} */
  private parseSequence(): Expression {
    const position = this.peek().position;
    const operands = [this.parseFactor()];
    while (TERM_START.has(this.peek().type)) operands.push(this.parseFactor());
    return operands.length === 1 ? (operands[0] as Expression) : { kind: 'sequence', operands, position };
  }

  /** factor : term {WS OR WS term} */
  private parseFactor(): Expression {
    const position = this.peek().position;
    const operands = [this.parseTerm()];
    while (this.peek().type === 'or') {
      this.advance();
      if (!TERM_START.has(this.peek().type)) {
        throw filterError(this.peek().position, `expected a restriction after OR, found ${describeToken(this.peek())}`);
      }
      operands.push(this.parseTerm());
    }
    return operands.length === 1 ? (operands[0] as Expression) : { kind: 'or', operands, position };
  }

  /** term : [(NOT WS | MINUS)] simple */
  private parseTerm(): Expression {
    const token = this.peek();
    if (token.type === 'not' || token.type === 'minus') {
      this.advance();
      const next = this.peek();
      if (token.type === 'minus' && next.spaceBefore) {
        throw filterError(token.position, "'-' must be followed directly by the restriction it negates");
      }
      if (next.type !== 'text' && next.type !== 'string' && next.type !== 'lparen') {
        throw filterError(next.position, `expected a restriction after ${describeToken(token)}, found ${describeToken(next)}`);
      }
      return { kind: 'not', operand: this.parseSimple(), position: token.position };
    }
    return this.parseSimple();
  }

  /** simple : restriction | composite */
  private parseSimple(): Expression {
    return this.peek().type === 'lparen' ? this.parseComposite() : this.parseRestriction();
  }

  /** composite : LPAREN expression RPAREN */
  private parseComposite(): Composite {
    const open = this.expect('lparen', "'('");
    this.enter(open.position);
    if (this.peek().type === 'rparen') throw filterError(this.peek().position, 'empty parentheses');
    const expression = this.parseExpression();
    this.expect('rparen', `')' to close '(' at position ${open.position}`);
    this.depth--;
    return { kind: 'composite', expression, position: open.position };
  }

  /** restriction : comparable [comparator arg] */
  private parseRestriction(): Expression {
    const comparable = this.parseComparable();
    if (++this.terms > FILTER_LIMITS.maxTerms) {
      throw filterError(comparable.position, `filter has more than ${FILTER_LIMITS.maxTerms} restrictions`);
    }
    const operator = COMPARATORS[this.peek().type];
    if (operator === undefined) return { kind: 'restriction', comparable, position: comparable.position };
    const comparatorToken = this.advance();
    const next = this.peek();
    if (next.type !== 'text' && next.type !== 'string' && next.type !== 'lparen' && next.type !== 'minus') {
      throw filterError(next.position, `expected a value after '${operator}', found ${describeToken(next)}`);
    }
    const arg = this.parseArg();
    return {
      kind: 'restriction',
      comparable,
      comparator: { operator, position: comparatorToken.position },
      arg,
      position: comparable.position,
    };
  }

  /** comparable : member | function */
  private parseComparable(): Comparable {
    const member = this.parseMember(false);
    const next = this.peek();
    if (next.type === 'lparen' && !next.spaceBefore) return this.parseFunction(member);
    return member;
  }

  /**
   * member : value {DOT field}
   * value  : TEXT | STRING
   * field  : value | keyword
   */
  private parseMember(negative: boolean): Member {
    const first = this.peek();
    if (first.type !== 'text' && first.type !== 'string') {
      throw filterError(first.position, `expected a field or value, found ${describeToken(first)}`);
    }
    this.advance();
    const value = this.literal(first);
    const fields: Literal[] = [];
    while (this.peek().type === 'dot' && !this.peek().spaceBefore) {
      const dot = this.advance();
      const field = this.peek();
      const isField = field.type === 'text' || field.type === 'string' || field.type === 'and' || field.type === 'or' || field.type === 'not';
      if (!isField || field.spaceBefore) {
        throw filterError(field.position, `expected a field name after '.' at position ${dot.position}, found ${describeToken(field)}`);
      }
      this.advance();
      fields.push(this.literal(field));
    }
    return { kind: 'member', value, fields, negative, position: first.position };
  }

  private literal(token: Token): Literal {
    return { text: token.value, quoted: token.type === 'string', position: token.position };
  }

  /**
   * function : name {DOT name} LPAREN [argList] RPAREN
   * name     : TEXT | keyword
   */
  private parseFunction(callee: Member): Comparable {
    const parts = [callee.value, ...callee.fields];
    const quoted = parts.find((part) => part.quoted);
    if (quoted) throw filterError(quoted.position, 'a function name cannot be a quoted string');
    const open = this.expect('lparen', "'('");
    this.enter(open.position);
    const args = this.peek().type === 'rparen' ? [] : this.parseArgList();
    this.expect('rparen', `')' to close the call at position ${open.position}`);
    this.depth--;
    return { kind: 'function', name: parts.map((part) => part.text).join('.'), args, position: callee.position };
  }

  /** argList : arg {COMMA arg} */
  private parseArgList(): Arg[] {
    const args = [this.parseArg()];
    while (this.peek().type === 'comma') {
      this.advance();
      args.push(this.parseArg());
    }
    return args;
  }

  /**
   * arg : comparable | composite
   * Extension: MINUS member directly followed, for negative numbers (`-5`, `-1.5`) and durations (`-30s`).
   */
  private parseArg(): Arg {
    const token = this.peek();
    if (token.type === 'lparen') return this.parseComposite();
    if (token.type === 'minus') {
      this.advance();
      const next = this.peek();
      if (next.type !== 'text' || next.spaceBefore) {
        throw filterError(token.position, "'-' in a value must be followed directly by a number");
      }
      return this.parseMember(true);
    }
    return this.parseComparable();
  }
}

/** Parses filter text into the raw syntax tree; undefined for an empty (or blank) filter. */
export function parse(text: string): Expression | undefined {
  return new Parser(lex(text)).parseFilter();
}
