import type { JsonObject } from '../../ports/json.js';

declare const unsupported: unique symbol;

/**
 * What {@link SchemaType} answers for a schema it cannot read (`anyOf`, `$ref`, no `type`…): not a JSON
 * value, so a resource type holding one fails `ResourceDefinition`'s constraint at compile time.
 */
export interface UnsupportedSchema<S> {
  readonly [unsupported]: S;
}

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type ObjectType<P, R extends PropertyKey> = [keyof P] extends [never]
  ? Record<string, never>
  : Simplify<
      { -readonly [K in keyof P as K extends R ? K : never]-?: SchemaType<P[K]> } &
      { -readonly [K in keyof P as K extends R ? never : K]?: SchemaType<P[K]> }
    >;

/**
 * The TypeScript type of the values a JSON Schema (written `as const`) accepts, for the keywords resource
 * schemas use: `type`, `enum`, `const`, `items`, `properties`, `required`, `additionalProperties`.
 *
 * Objects with `properties` are closed, as the request validators make them (`strictSchema`: an unknown
 * field is INVALID_ARGUMENT), so a misspelt field is a compile error; an object with only
 * `additionalProperties` is a map; a free-form object (`{type: 'object'}`) is a `JsonObject`. Every type
 * it produces is a JSON value, so a resource is a `JsonObject` wherever storage needs one.
 *
 * A schema it cannot read gives {@link UnsupportedSchema}, never a silent `unknown`.
 *
 * Not json-schema-to-ts's `FromSchema`: its objects are open (`[x: string]: unknown`, as the schemas do
 * not say `additionalProperties: false`, and saying it would change the OpenAPI document), so they are
 * neither closed nor JSON, and closing them costs the type checker about three times what this does.
 */
export type SchemaType<S> = S extends { readonly enum: readonly (infer E)[] }
  ? E
  : S extends { readonly const: infer C }
    ? C
    : S extends { readonly type: 'string' }
      ? string
      : S extends { readonly type: 'integer' | 'number' }
        ? number
        : S extends { readonly type: 'boolean' }
          ? boolean
          : S extends { readonly type: 'array'; readonly items: infer I }
            ? SchemaType<I>[]
            : S extends { readonly type: 'object'; readonly properties: infer P }
              ? ObjectType<P, S extends { readonly required: readonly (infer R extends PropertyKey)[] } ? R : never>
              : S extends { readonly type: 'object'; readonly additionalProperties: infer A }
                ? { [key: string]: SchemaType<A> }
                : S extends { readonly type: 'object' }
                  ? JsonObject
                  : UnsupportedSchema<S>;

/** Fields every stored resource carries: `ResourceService` sets them before any rule runs. */
export type StoredFields = 'name' | 'createTime' | 'updateTime';

/**
 * A resource as services and rules see it: the type of its schema, with the fields every stored record
 * carries (name, createTime, updateTime) present. Every other field is optional, as in the schema.
 */
export type ResourceType<S> = Simplify<SchemaType<S> & { [K in StoredFields & keyof SchemaType<S>]-?: string }>;
