/**
 * AIP-160 lexer. Turns filter text into tokens with positions (UTF-16 offsets). Whitespace is not a
 * token; each token records whether whitespace preceded it, which the parser needs for `-` and `.`.
 */
import { filterError } from './errors.js';
import type { Token, TokenType } from './token.js';

const SINGLE: Readonly<Record<string, TokenType>> = {
  '(': 'lparen',
  ')': 'rparen',
  ',': 'comma',
  '.': 'dot',
  '=': 'equals',
  ':': 'has',
  '-': 'minus',
};

/** Characters that end a TEXT token (besides whitespace). `-` only counts at the start of a token. */
const TEXT_STOP = new Set(['(', ')', ',', '.', '=', '!', '<', '>', ':', '"', "'"]);

const KEYWORDS: Readonly<Record<string, TokenType>> = { AND: 'and', OR: 'or', NOT: 'not' };

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\',
  '"': '"',
  "'": "'",
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
  v: '\v',
};

function isWhitespace(char: string): boolean {
  return /\s/.test(char);
}

/** No stored string may hold NUL (PostgreSQL cannot), so no filter may compare with one. */
const NUL_MESSAGE = 'the NUL character (\\u0000) is not allowed';

/** Reads a quoted string starting at `start` (the quote). Escapes: \\ \" \' \n \r \t \b \f \v \uXXXX. */
function readString(text: string, start: number): { value: string; end: number } {
  const quote = text[start];
  let value = '';
  let i = start + 1;
  while (i < text.length) {
    const char = text[i] as string;
    if (char === quote) return { value, end: i + 1 };
    if (char === '\\') {
      const next = text[i + 1];
      if (next === undefined) break;
      const simple = SIMPLE_ESCAPES[next];
      if (simple !== undefined && Object.hasOwn(SIMPLE_ESCAPES, next)) {
        value += simple;
        i += 2;
        continue;
      }
      if (next === 'u') {
        const hex = text.slice(i + 2, i + 6);
        if (/^[0-9a-fA-F]{4}$/.test(hex)) {
          const code = parseInt(hex, 16);
          if (code === 0) throw filterError(i, NUL_MESSAGE);
          value += String.fromCharCode(code);
          i += 6;
          continue;
        }
      }
      throw filterError(i, `invalid escape sequence '\\${next}' in string (allowed: \\\\ \\" \\' \\n \\r \\t \\b \\f \\v \\uXXXX)`);
    }
    value += char;
    i++;
  }
  throw filterError(start, 'unterminated string literal');
}

/** Splits filter text into tokens, ending with an `end` token. Throws INVALID_ARGUMENT on bad input. */
export function lex(text: string): Token[] {
  const nul = text.indexOf('\u0000');
  if (nul !== -1) throw filterError(nul, NUL_MESSAGE);
  const tokens: Token[] = [];
  let i = 0;
  let spaceBefore = false;
  const push = (type: TokenType, start: number, end: number, value?: string): void => {
    const raw = text.slice(start, end);
    tokens.push({ type, raw, value: value ?? raw, position: start, spaceBefore });
    spaceBefore = false;
    i = end;
  };
  while (i < text.length) {
    const char = text[i] as string;
    if (isWhitespace(char)) {
      spaceBefore = true;
      i++;
      continue;
    }
    const single = SINGLE[char];
    if (single !== undefined && Object.hasOwn(SINGLE, char)) {
      push(single, i, i + 1);
      continue;
    }
    if (char === '!') {
      if (text[i + 1] !== '=') throw filterError(i, "unexpected '!' (did you mean '!=' or NOT?)");
      push('notEquals', i, i + 2);
      continue;
    }
    if (char === '<' || char === '>') {
      const orEqual = text[i + 1] === '=';
      const type: TokenType = char === '<' ? (orEqual ? 'lessEquals' : 'lessThan') : orEqual ? 'greaterEquals' : 'greaterThan';
      push(type, i, orEqual ? i + 2 : i + 1);
      continue;
    }
    if (char === '"' || char === "'") {
      const { value, end } = readString(text, i);
      push('string', i, end, value);
      continue;
    }
    let end = i + 1;
    while (end < text.length) {
      const c = text[end] as string;
      if (isWhitespace(c) || TEXT_STOP.has(c)) break;
      end++;
    }
    const word = text.slice(i, end);
    const keyword = Object.hasOwn(KEYWORDS, word) ? KEYWORDS[word] : undefined;
    push(keyword ?? 'text', i, end);
  }
  tokens.push({ type: 'end', raw: '', value: '', position: text.length, spaceBefore });
  return tokens;
}
