/** The part of an OpenAPI document that `$ref`s point into. */
export interface OpenApiComponents {
  readonly components?: { readonly schemas?: Readonly<Record<string, unknown>> };
}

const prefix = '#/components/schemas/';

/**
 * `value` with every `{$ref: '#/components/schemas/X'}` replaced by a copy of X (recursively), for tests
 * that read a body schema as one tree. The document's schemas are not recursive; a cycle throws.
 */
export function inlineRefs<T>(value: T, doc: OpenApiComponents, seen: readonly string[] = []): T {
  if (Array.isArray(value)) return value.map((v: unknown) => inlineRefs(v, doc, seen)) as T;
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  if (typeof record.$ref === 'string' && record.$ref.startsWith(prefix)) {
    const name = record.$ref.slice(prefix.length);
    if (seen.includes(name)) throw new Error(`recursive schema ${[...seen, name].join(' → ')}`);
    const target = doc.components?.schemas?.[name];
    if (target === undefined) throw new Error(`unknown component ${name}`);
    return inlineRefs(target, doc, [...seen, name]) as T;
  }
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, inlineRefs(v, doc, seen)])) as T;
}
