/**
 * Checks a raw filter tree against a resource's field declarations and produces the typed
 * `CheckedFilter` back ends consume: fields resolved, literals converted to their field's type and
 * normalised (int64 canonical digits, timestamps ISO UTC + epoch, durations in seconds).
 */
import type { FieldDeclaration, FieldDeclarations, FieldType } from '../fields.js';
import { resolveField, samePath } from '../field-names.js';
import { canonicalInt64, parseDuration, parseNumberLiteral, parseTimestamp } from '../values.js';
import type { CheckedField, CheckedFilter, CheckedValue, ComparisonOperator, Position } from './ast.js';
import { filterError } from './errors.js';
import type { Arg, Comparator, Expression, Member, Restriction } from './expression.js';

/** Where a value came from: a literal, or one of the functions `timestamp("…")` / `duration("…")`. */
type ValueSource =
  | { readonly kind: 'literal'; readonly text: string; readonly quoted: boolean; readonly position: Position }
  | { readonly kind: 'function'; readonly name: 'timestamp' | 'duration'; readonly text: string; readonly position: Position };

const KNOWN_FUNCTIONS = new Set(['timestamp', 'duration']);
const ORDERING: ReadonlySet<string> = new Set(['<', '<=', '>', '>=']);

function memberText(member: Member): string {
  return (member.negative ? '-' : '') + [member.value, ...member.fields].map((part) => part.text).join('.');
}

function quote(text: string): string {
  return JSON.stringify(text);
}

/** Non-repeated, non-map string fields: what a bare literal (global restriction) searches. */
function globalFields(declarations: FieldDeclarations): FieldDeclaration[] {
  const fields: FieldDeclaration[] = [];
  for (const declaration of Object.values(declarations)) {
    if (declaration.type !== 'string' || declaration.repeated || declaration.map) continue;
    if (!fields.some((known) => samePath(known, declaration))) fields.push(declaration);
  }
  return fields;
}

class Checker {
  private globals: FieldDeclaration[] | undefined;

  constructor(private readonly declarations: FieldDeclarations) {}

  check(expression: Expression): CheckedFilter {
    switch (expression.kind) {
      case 'and':
      case 'sequence':
        return this.junction('and', expression.operands);
      case 'or':
        return this.junction('or', expression.operands);
      case 'not':
        return { kind: 'not', operand: this.check(expression.operand) };
      case 'composite':
        return this.check(expression.expression);
      case 'restriction':
        return this.restriction(expression);
    }
  }

  private junction(kind: 'and' | 'or', operands: readonly Expression[]): CheckedFilter {
    const checked: CheckedFilter[] = [];
    for (const operand of operands) {
      const child = this.check(operand);
      if (child.kind === kind) checked.push(...child.operands);
      else checked.push(child);
    }
    return checked.length === 1 ? (checked[0] as CheckedFilter) : { kind, operands: checked };
  }

  private restriction(restriction: Restriction): CheckedFilter {
    const { comparable, comparator, arg } = restriction;
    if (comparable.kind === 'function') {
      const message = comparator
        ? `the left side of '${comparator.operator}' must be a field, not the function ${comparable.name}()`
        : `the function ${comparable.name}() is not a restriction by itself`;
      throw filterError(comparable.position, message);
    }
    if (!comparator || !arg) return this.global(comparable);
    const field = this.field(comparable);
    const source = this.source(arg);
    return comparator.operator === ':'
      ? this.has(field, source)
      : this.compare(field, comparator.operator, comparator.position, source);
  }

  private global(member: Member): CheckedFilter {
    this.globals ??= globalFields(this.declarations);
    if (this.globals.length === 0) {
      throw filterError(member.position, 'this collection has no text fields to search with a bare value; compare a field instead');
    }
    return { kind: 'global', text: memberText(member), fields: this.globals };
  }

  private field(member: Member): CheckedField & { readonly text: string } {
    const parts = [member.value, ...member.fields];
    const text = parts.map((part) => part.text).join('.');
    const resolved = resolveField(parts.map((part) => part.text), this.declarations);
    if (!resolved) throw filterError(member.position, `unknown field ${quote(text)}`);
    return {
      declaration: resolved.declaration,
      ...(resolved.mapKey !== undefined ? { mapKey: resolved.mapKey } : {}),
      position: member.position,
      text,
    };
  }

  private source(arg: Arg): ValueSource {
    if (arg.kind === 'composite') {
      throw filterError(arg.position, 'a parenthesised expression cannot be used as a value');
    }
    if (arg.kind === 'member') {
      return {
        kind: 'literal',
        text: memberText(arg),
        quoted: arg.fields.length === 0 && arg.value.quoted && !arg.negative,
        position: arg.position,
      };
    }
    if (!KNOWN_FUNCTIONS.has(arg.name)) {
      throw filterError(arg.position, `unknown function ${quote(arg.name)} (allowed: timestamp, duration)`);
    }
    const name = arg.name as 'timestamp' | 'duration';
    const [only, ...rest] = arg.args;
    if (!only || rest.length > 0 || only.kind !== 'member' || only.fields.length > 0 || !only.value.quoted || only.negative) {
      throw filterError(arg.position, `${name}() takes exactly one quoted string, e.g. ${name === 'timestamp' ? 'timestamp("2024-01-01T00:00:00Z")' : 'duration("30s")'}`);
    }
    return { kind: 'function', name, text: only.value.text, position: arg.position };
  }

  private compare(
    field: CheckedField & { readonly text: string },
    operator: ComparisonOperator,
    operatorPosition: Position,
    source: ValueSource,
  ): CheckedFilter {
    const { declaration } = field;
    const checkedField = this.strip(field);
    if (source.kind === 'literal' && !source.quoted && source.text === 'null') {
      if (operator !== '=' && operator !== '!=') {
        throw filterError(operatorPosition, `null can only be compared with = or !=, not '${operator}'`);
      }
      return { kind: 'compare', field: checkedField, operator, value: { type: 'null' } };
    }
    if (declaration.map && field.mapKey === undefined) {
      throw filterError(field.position, `${quote(field.text)} is a map field; compare one entry (${field.text}.<key>) or test a key with ${field.text}:<key>`);
    }
    if (declaration.repeated) {
      throw filterError(operatorPosition, `${quote(field.text)} is a repeated field; use ':' to test membership`);
    }
    if (ORDERING.has(operator) && (declaration.type === 'enum' || declaration.type === 'bool')) {
      throw filterError(operatorPosition, `'${operator}' cannot be used on the ${declaration.type} field ${quote(field.text)}; use = or !=`);
    }
    const value = this.value(declaration, field.text, operator, source);
    return { kind: 'compare', field: checkedField, operator, value };
  }

  private has(field: CheckedField & { readonly text: string }, source: ValueSource): CheckedFilter {
    const { declaration } = field;
    const checkedField = this.strip(field);
    if (source.kind === 'literal' && !source.quoted && source.text === '*') return { kind: 'has', field: checkedField };
    if (source.kind === 'literal' && !source.quoted && source.text === 'null') {
      throw filterError(source.position, "null cannot be used with ':'; use = null or != null");
    }
    if (declaration.map && field.mapKey === undefined) {
      if (source.kind === 'function') throw filterError(source.position, `map field ${quote(field.text)} takes a key after ':'`);
      return { kind: 'has', field: checkedField, value: { type: 'string', value: source.text, wildcard: false } };
    }
    return { kind: 'has', field: checkedField, value: this.value(declaration, field.text, ':', source) };
  }

  private strip(field: CheckedField & { readonly text: string }): CheckedField {
    return {
      declaration: field.declaration,
      ...(field.mapKey !== undefined ? { mapKey: field.mapKey } : {}),
      position: field.position,
    };
  }

  /** Converts a literal to the field's type, or throws naming what the field expects. */
  private value(declaration: FieldDeclaration, fieldText: string, operator: Comparator, source: ValueSource): CheckedValue {
    const type: FieldType = declaration.type;
    const { text, position } = source;
    const fail = (expects: string): never => {
      throw filterError(position, `${quote(fieldText)} is a ${type} field and expects ${expects}; got ${quote(text)}`);
    };
    if (source.kind === 'function' && source.name !== type) {
      throw filterError(position, `${source.name}() cannot be compared with the ${type} field ${quote(fieldText)}`);
    }
    switch (type) {
      case 'string':
        return { type: 'string', value: text, wildcard: operator !== '<' && operator !== '<=' && operator !== '>' && operator !== '>=' && text.includes('*') };
      case 'enum': {
        const allowed = declaration.enumValues;
        if (allowed && !allowed.includes(text)) {
          throw filterError(position, `invalid value ${quote(text)} for the enum field ${quote(fieldText)}; allowed values: ${allowed.join(', ')}`);
        }
        return { type: 'enum', value: text };
      }
      case 'bool':
        if (text !== 'true' && text !== 'false') return fail('true or false');
        return { type: 'bool', value: text === 'true' };
      case 'int':
      case 'double': {
        const value = parseNumberLiteral(text);
        if (value === undefined) return fail('a number');
        return { type: 'number', value };
      }
      case 'int64': {
        const value = canonicalInt64(text);
        if (value === undefined) return fail('a 64-bit integer');
        return { type: 'int64', value };
      }
      case 'timestamp': {
        const value = parseTimestamp(text);
        if (!value) return fail('an RFC 3339 timestamp in quotes, e.g. "2024-01-01T00:00:00Z"');
        return { type: 'timestamp', value: value.iso, epochMs: value.epochMs };
      }
      case 'duration': {
        const seconds = parseDuration(text);
        if (seconds === undefined) return fail('a duration in seconds, e.g. 30s or "1.5s"');
        return { type: 'duration', seconds };
      }
    }
  }
}

/** Checks a parsed filter against the declarations. Throws INVALID_ARGUMENT naming the position. */
export function check(expression: Expression, declarations: FieldDeclarations): CheckedFilter {
  return new Checker(declarations).check(expression);
}
