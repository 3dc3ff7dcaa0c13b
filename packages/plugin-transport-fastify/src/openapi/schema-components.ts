/**
 * The named schemas (`components.schemas`) of the OpenAPI document. Every request and response body is
 * registered under a name. A body identical to a component named on purpose (a resource such as `Model`,
 * the empty object, the error bodies) shares it, and so does a schema nested in another (a list's items, a
 * resource inside a wrapper): generated clients get one named type per resource. Bodies named after their
 * operation only (`ScaleDeploymentRequest`) are never shared, so an answer is not named after another
 * operation that happens to answer the same shape.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** JSON with sorted keys: two schemas built by different code but equal as JSON get the same key. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A plain JSON copy (schemas are often `as const` literals shared between routes). */
const plain = (schema: unknown): Json => JSON.parse(JSON.stringify(schema)) as Json;

const isObject = (value: Json | undefined): value is { [key: string]: Json } => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An object schema that declares nothing (`{}` answers): named `Empty` whoever registers it first. */
function isEmptyObject(schema: Json): boolean {
  return isObject(schema) && schema.type === 'object' && isObject(schema.properties) && Object.keys(schema.properties).length === 0
    && Object.keys(schema).every((key) => key === 'type' || key === 'properties');
}

/** Keywords whose value is a schema, or a list or map of schemas. */
const schemaKeywords = ['items', 'additionalProperties', 'not', 'contains', 'if', 'then', 'else'];
const schemaListKeywords = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const schemaMapKeywords = ['properties', 'patternProperties', '$defs'];

export const componentRef = (name: string): string => `#/components/schemas/${name}`;

export class SchemaComponents {
  private readonly schemas = new Map<string, Json>();
  /** The shared components (named on purpose) by their schema's canonical JSON. */
  private readonly nameByKey = new Map<string, string>();

  /** Adds a schema that already has its name (the error bodies). */
  define(name: string, schema: unknown): { $ref: string } {
    const json = plain(schema);
    this.schemas.set(name, json);
    this.nameByKey.set(canonical(json), name);
    return { $ref: componentRef(name) };
  }

  /**
   * The `$ref` of `schema`: the shared component of an identical schema when there is one, else a new
   * component named `name` (or `fallback`, then `fallback2`, … when that name holds another schema).
   * With `shared`, later identical schemas (top-level or nested) refer to it.
   */
  register(schema: unknown, name: string, fallback: string, shared: boolean): { $ref: string } {
    const json = plain(schema);
    const key = canonical(json);
    const existing = this.nameByKey.get(key);
    if (existing !== undefined) return { $ref: componentRef(existing) };
    const empty = isEmptyObject(json);
    const wanted = empty ? 'Empty' : name;
    let chosen = [wanted, fallback].find((candidate) => !this.schemas.has(candidate));
    for (let n = 2; chosen === undefined; n += 1) if (!this.schemas.has(`${fallback}${n}`)) chosen = `${fallback}${n}`;
    this.schemas.set(chosen, json);
    if (shared || empty) this.nameByKey.set(key, chosen);
    return { $ref: componentRef(chosen) };
  }

  /** The components, each nested schema equal to another (non-empty) component replaced by its `$ref`. */
  toComponents(): Record<string, Json> {
    const result: Record<string, Json> = {};
    for (const [name, schema] of this.schemas) result[name] = this.withRefs(schema, name);
    return result;
  }

  private refOf(schema: Json, self: string): Json | undefined {
    if (isEmptyObject(schema)) return undefined;
    const name = this.nameByKey.get(canonical(schema));
    return name === undefined || name === self ? undefined : { $ref: componentRef(name) };
  }

  /** `schema` with its sub-schemas (not itself) replaced by references where they equal a component. */
  private withRefs(schema: Json, self: string): Json {
    if (!isObject(schema)) return schema;
    const sub = (child: Json): Json => (isObject(child) ? (this.refOf(child, self) ?? this.withRefs(child, self)) : child);
    const out: { [key: string]: Json } = {};
    for (const [key, value] of Object.entries(schema)) {
      if (schemaKeywords.includes(key)) out[key] = sub(value);
      else if (schemaListKeywords.includes(key) && Array.isArray(value)) out[key] = value.map(sub);
      else if (schemaMapKeywords.includes(key) && isObject(value)) out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sub(v)]));
      else out[key] = value;
    }
    return out;
  }
}
