/**
 * AIP-132 `orderBy`: `"a, b desc, c.d"`, written in-house like the rest of the AIP layer (no maintained
 * JavaScript package exists). Field paths are snake_case or camelCase; `asc`/`desc` are case-insensitive.
 */
import { invalidArgument, type GatewayError } from '../errors/index.js';
import type { FieldDeclarations, OrderTerm } from '../contracts/list-query.js';
import { nameDeclaration, resolveField, samePath } from './field-names.js';

/** One term of a checked orderBy. The listing layer always appends `name` ascending as tiebreaker. */
export type { OrderTerm } from '../contracts/list-query.js';

const MAX_ORDER_BY_LENGTH = 2048;
const SEGMENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

function orderByError(message: string, field?: string): GatewayError {
  return invalidArgument(`invalid orderBy: ${message}`, { reason: 'INVALID_ORDER_BY', field: field ?? 'orderBy' });
}

function parseTerms(text: string, declarations: FieldDeclarations): OrderTerm[] {
  if (text.length > MAX_ORDER_BY_LENGTH) throw orderByError(`longer than ${MAX_ORDER_BY_LENGTH} characters`);
  const terms: OrderTerm[] = [];
  const items = text.split(',');
  for (const item of items) {
    const words = item.trim().split(/\s+/).filter((word) => word.length > 0);
    if (words.length === 0) throw orderByError('empty term (check the commas)');
    const [path, direction, extra] = words as [string, string | undefined, string | undefined];
    if (extra !== undefined || (direction !== undefined && !/^(asc|desc)$/i.test(direction))) {
      throw orderByError(`expected "<field> [asc|desc]", got ${JSON.stringify(item.trim())}`);
    }
    const segments = path.split('.');
    if (!segments.every((segment) => SEGMENT.test(segment))) {
      throw orderByError(`invalid field path ${JSON.stringify(path)}`);
    }
    const resolved = resolveField(segments, declarations);
    if (!resolved) throw orderByError(`unknown field ${JSON.stringify(path)}`);
    const { declaration } = resolved;
    if (resolved.mapKey !== undefined || declaration.map) {
      throw orderByError(`cannot sort by the map field ${JSON.stringify(path)}`);
    }
    if (declaration.repeated) throw orderByError(`cannot sort by the repeated field ${JSON.stringify(path)}`);
    if (declaration.sortable === false) throw orderByError(`field ${JSON.stringify(path)} is not sortable`);
    if (terms.some((term) => samePath(term.declaration, declaration))) {
      throw orderByError(`field ${JSON.stringify(path)} appears more than once`);
    }
    terms.push({ declaration, descending: direction !== undefined && direction.toLowerCase() === 'desc' });
  }
  return terms;
}

/**
 * Parses and checks an orderBy against the declarations; empty or blank text uses `defaultOrder` (same
 * syntax). Always ends with `name` ascending as the unique tiebreaker unless `name` is already a term.
 * Throws INVALID_ARGUMENT naming the field for unknown, repeated, map, non-sortable or duplicate fields.
 */
export function parseOrderBy(text: string | undefined, declarations: FieldDeclarations, defaultOrder: string): OrderTerm[] {
  const source = text === undefined || text.trim() === '' ? defaultOrder : text;
  const terms = source.trim() === '' ? [] : parseTerms(source, declarations);
  const name = nameDeclaration(declarations);
  if (!terms.some((term) => samePath(term.declaration, name))) terms.push({ declaration: name, descending: false });
  return terms;
}
