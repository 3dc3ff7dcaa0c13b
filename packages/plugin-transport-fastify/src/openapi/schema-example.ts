/**
 * Examples generated from JSON Schemas, for the OpenAPI document: every operation shows a request and a
 * response body without anyone writing them by hand, and they cannot drift from the schemas (a test
 * validates each one against its schema).
 */

/** A request example leaves out `readOnly` properties (the server sets them); a response one `writeOnly`. */
export type ExampleDirection = 'request' | 'response';

type Schema = Readonly<Record<string, unknown>>;

/** Fixed values for the string formats the schemas use, so examples are stable. */
const formatExamples: Readonly<Record<string, string>> = {
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  email: 'user@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
  int64: '1',
};

/** Values tried in turn for a string with a `pattern` (ids, durations, upper-case enums, flags). */
const patternCandidates = ['example', '1', '30s', 'EXAMPLE', 'g', 'example-1', ''];

/** Past this depth objects show their required properties only (schemas are trees, but deep ones are long). */
const fullDepth = 6;
const maxDepth = 12;

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

function typeOf(schema: Schema): string | undefined {
  const { type } = schema;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return (type as unknown[]).find((t): t is string => typeof t === 'string' && t !== 'null') ?? (type[0] as string | undefined);
  if (isSchema(schema.properties)) return 'object';
  if (isSchema(schema.items)) return 'array';
  return undefined;
}

function stringExample(schema: Schema): string {
  const format = typeof schema.format === 'string' ? formatExamples[schema.format] : undefined;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const fits = (text: string) => text.length <= maxLength && text.length >= minLength;
  if (typeof schema.pattern === 'string') {
    const pattern = new RegExp(schema.pattern, 'u');
    const match = [...(format ? [format] : []), ...patternCandidates].find((text) => pattern.test(text) && fits(text));
    if (match !== undefined) return match;
  }
  const text = format ?? 'string';
  return fits(text) ? text : 'x'.repeat(Math.min(Math.max(minLength, 1), maxLength));
}

function numberExample(schema: Schema, integer: boolean): number {
  const { minimum, maximum, exclusiveMinimum } = schema;
  let value = typeof minimum === 'number' ? minimum : typeof exclusiveMinimum === 'number' ? exclusiveMinimum + 1 : integer ? 1 : 0.5;
  if (typeof maximum === 'number' && value > maximum) value = maximum;
  return integer ? Math.ceil(value) : value;
}

function objectExample(schema: Schema, direction: ExampleDirection, depth: number): Record<string, unknown> {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const hidden = direction === 'request' ? 'readOnly' : 'writeOnly';
  const names = Object.keys(properties)
    .filter((name) => isSchema(properties[name]) && properties[name][hidden] !== true)
    .filter((name) => depth < fullDepth || required.has(name))
    .sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
  const limit = typeof schema.maxProperties === 'number' ? schema.maxProperties : names.length;
  const example: Record<string, unknown> = {};
  for (const name of names.slice(0, limit)) example[name] = exampleAt(properties[name] as Schema, direction, depth + 1);
  return example;
}

function exampleAt(schema: Schema, direction: ExampleDirection, depth: number): unknown {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('example' in schema) return schema.example;
  if ('const' in schema) return schema.const;
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.enum)) {
    // Proto-style enums start with `X_UNSPECIFIED`, which no real resource holds: the next value shows better.
    const values = (schema.enum as unknown[]).filter((value) => value !== null);
    return values.find((value) => !(typeof value === 'string' && value.endsWith('_UNSPECIFIED'))) ?? values[0] ?? null;
  }
  const branches = [schema.anyOf, schema.oneOf].find(Array.isArray) as unknown[] | undefined;
  if (branches) {
    const branch = branches.filter(isSchema).find((b) => b.type !== 'null') ?? branches.find(isSchema);
    return branch ? exampleAt({ ...schema, anyOf: undefined, oneOf: undefined, ...branch }, direction, depth) : null;
  }
  if (depth > maxDepth) return null;
  switch (typeOf(schema)) {
    case 'object':
      return objectExample(schema, direction, depth);
    case 'array': {
      if (schema.maxItems === 0 || !isSchema(schema.items)) return [];
      const count = typeof schema.minItems === 'number' && schema.minItems > 1 ? schema.minItems : 1;
      return Array.from({ length: count }, () => exampleAt(schema.items as Schema, direction, depth + 1));
    }
    case 'string':
      return stringExample(schema);
    case 'integer':
      return numberExample(schema, true);
    case 'number':
      return numberExample(schema, false);
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      // A schema with no type takes any JSON value: the text form is the common one (`input`, `prompt`).
      return 'string';
  }
}

/** An example value of `schema`: its own `examples`/`const`/`default`/first specified `enum` value, else built from its type. */
export function exampleOf(schema: unknown, direction: ExampleDirection): unknown {
  return isSchema(schema) ? exampleAt(schema, direction, 0) : null;
}
