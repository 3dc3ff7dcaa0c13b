/**
 * NUL (`\u0000`) in client input. PostgreSQL cannot store it in `text` or `jsonb`, so it is refused
 * everywhere, identically on every storage (docs/decisions.md, Input rules).
 */
import { invalidArgument } from '../errors/index.js';

/** The refusal of a string carrying NUL (`\u0000`), which PostgreSQL cannot store in text or jsonb. */
export function nulError(where: string, field?: string): Error {
  return invalidArgument(`${where} must not contain the NUL character (\\u0000)`, { reason: 'NUL_CHARACTER', ...(field ? { field } : {}) });
}

/** Throws INVALID_ARGUMENT when `text` contains NUL; `field` names it in the error. */
export function assertNoNul(text: string, field: string): void {
  if (text.includes('\u0000')) throw nulError(`parameter "${field}"`, field);
}

/** Where a value sits in the body; the path text is built only when an error names it. */
interface Place {
  readonly parent: Place | undefined;
  readonly key: string | number;
}

function pathOf(place: Place | undefined): string {
  const keys: Array<string | number> = [];
  for (let at = place; at !== undefined; at = at.parent) keys.push(at.key);
  let path = '';
  for (const key of keys.reverse()) path += typeof key === 'number' ? `[${key}]` : path === '' ? key : `.${key}`;
  return path;
}

function refuseNul(place: Place | undefined): never {
  const path = pathOf(place);
  throw nulError(path === '' ? 'request body' : `field "${path}"`, path || undefined);
}

/**
 * Throws INVALID_ARGUMENT when any string of a JSON value (a value or a key, at any depth) contains NUL,
 * naming the field. Iterative: only objects and arrays are stacked; strings are checked where met.
 */
export function assertNoNulInJson(value: unknown): void {
  if (typeof value === 'string' && value.includes('\u0000')) refuseNul(undefined);
  const stack: Array<[object, Place | undefined]> = [];
  if (value !== null && typeof value === 'object') stack.push([value, undefined]);
  const visit = (child: unknown, parent: Place | undefined, key: string | number): void => {
    if (typeof child === 'string') {
      if (child.includes('\u0000')) refuseNul({ parent, key });
    } else if (child !== null && typeof child === 'object') stack.push([child, { parent, key }]);
  };
  while (stack.length > 0) {
    const [current, place] = stack.pop()!;
    if (Array.isArray(current)) {
      for (let i = 0; i < current.length; i += 1) visit(current[i], place, i);
      continue;
    }
    for (const key of Object.keys(current)) {
      if (key.includes('\u0000')) {
        const path = pathOf(place);
        throw nulError(`a field name in ${path === '' ? 'the request body' : `"${path}"`}`, path || undefined);
      }
      visit((current as Record<string, unknown>)[key], place, key);
    }
  }
}
