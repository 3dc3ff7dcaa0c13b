import { invalidArgument } from '../errors/index.js';
import { assertNoNul } from '../validation/nul.js';
import type { QueryParamSpec, QueryValues } from './route-spec.js';

/**
 * Parses query parameters by their declared types. Integers and booleans must be written exactly
 * (`pageSize=20`, `hard=true`): anything else is INVALID_ARGUMENT naming the parameter. Parameters the
 * route does not declare are ignored.
 */
export function parseQuery(raw: Record<string, unknown>, specs: readonly QueryParamSpec[]): QueryValues {
  const out: Record<string, string | number | boolean | undefined> = {};
  for (const spec of specs) {
    let value = raw[spec.name];
    if (Array.isArray(value)) {
      if (value.length > 1) throw invalidArgument(`query parameter ${spec.name} is given more than once`, { field: spec.name });
      value = value[0];
    }
    if (value === undefined) continue;
    const text = String(value);
    assertNoNul(text, spec.name);
    switch (spec.type) {
      case 'string':
        out[spec.name] = text;
        break;
      case 'integer':
        if (!/^-?\d{1,10}$/.test(text)) throw invalidArgument(`query parameter ${spec.name} must be an integer`, { field: spec.name });
        out[spec.name] = Number(text);
        break;
      case 'boolean':
        if (text !== 'true' && text !== 'false') throw invalidArgument(`query parameter ${spec.name} must be true or false`, { field: spec.name });
        out[spec.name] = text === 'true';
        break;
    }
  }
  return out;
}

export function queryString(query: QueryValues, name: string): string | undefined {
  const value = query[name];
  return typeof value === 'string' ? value : undefined;
}

export function queryNumber(query: QueryValues, name: string): number | undefined {
  const value = query[name];
  return typeof value === 'number' ? value : undefined;
}

export function queryFlag(query: QueryValues, name: string): boolean {
  return query[name] === true;
}
