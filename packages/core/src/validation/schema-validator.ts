import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import * as addFormatsModule from 'ajv-formats';
import { invalidArgument } from '../errors/index.js';
import type { JsonObject } from '../ports/json.js';
import { assertNoNulInJson } from './nul.js';
import { deletePath, isPlainObject } from './paths.js';

type AddFormats = (ajv: Ajv, formats: string[]) => Ajv;
// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped once or twice.
const formatsExport = addFormatsModule as unknown as { default: AddFormats | { default: AddFormats } };
const addFormats: AddFormats = typeof formatsExport.default === 'function' ? formatsExport.default : formatsExport.default.default;

/** A JSON Schema as written in resource folders (`as const` objects). */
export type JsonSchema = { readonly [key: string]: unknown };

const ajv = new Ajv({ allErrors: false, strict: false, coerceTypes: false, useDefaults: false });
addFormats(ajv, ['date-time', 'date', 'uri', 'email']);

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/** An int64 carried as a JSON string of decimal digits (protobuf JSON), within the int64 range. */
export function isInt64Text(text: string): boolean {
  if (!/^-?[0-9]{1,19}$/.test(text)) return false;
  const value = BigInt(text);
  return value >= int64Min && value <= int64Max;
}
ajv.addFormat('int64', { type: 'string', validate: isInt64Text });

/**
 * Returns a copy of `schema` where every object schema without an explicit `additionalProperties`
 * rejects unknown fields: request bodies are strict.
 */
export function strictSchema(schema: JsonSchema): JsonSchema {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!isPlainObject(node as never) || node === null) return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      out[key] = key === 'enum' || key === 'const' || key === 'required' ? value : visit(value);
    }
    if (out.type === 'object' && out.properties !== undefined && out.additionalProperties === undefined) {
      out.additionalProperties = false;
    }
    return out;
  };
  return visit(schema) as JsonSchema;
}

function fieldOf(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  return path.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

function describe(error: ErrorObject, where: string): { message: string; field: string } {
  const base = fieldOf(error);
  const at = base ? `field "${base}"` : where;
  switch (error.keyword) {
    case 'additionalProperties': {
      const extra = String((error.params as { additionalProperty: string }).additionalProperty);
      const field = base ? `${base}.${extra}` : extra;
      return { message: `unknown field "${field}" in ${where}`, field };
    }
    case 'type':
      return { message: `${at} must be of type ${String((error.params as { type: string }).type)}`, field: base };
    case 'enum':
      return {
        message: `${at} must be one of: ${((error.params as { allowedValues: unknown[] }).allowedValues ?? []).join(', ')}`,
        field: base,
      };
    case 'required': {
      const missing = String((error.params as { missingProperty: string }).missingProperty);
      const field = base ? `${base}.${missing}` : missing;
      return { message: `field "${field}" is required`, field };
    }
    case 'format':
      if ((error.params as { format?: string }).format === 'int64') {
        return { message: `${at} must be a 64-bit integer written as a string (at most 9223372036854775807)`, field: base };
      }
      return { message: `${at} ${error.message ?? 'is invalid'}`, field: base };
    case 'pattern':
      return { message: `${at} has an invalid format (expected ${error.message ?? 'a matching value'})`, field: base };
    default:
      return { message: `${at} ${error.message ?? 'is invalid'}`, field: base };
  }
}

/** Turns an Ajv failure into INVALID_ARGUMENT naming the field. */
export function schemaError(errors: ErrorObject[] | null | undefined, where: string): Error {
  const first = errors?.[0];
  if (!first) return invalidArgument(`${where} is invalid`);
  const { message, field } = describe(first, where);
  return invalidArgument(message, { field, reason: first.keyword === 'additionalProperties' ? 'UNKNOWN_FIELD' : 'INVALID_FIELD' });
}

/**
 * Strict validators compiled once per distinct schema (keyed by its JSON text, since callers derive
 * schemas afresh, e.g. without `required`): resource services are built per gateway, and compiling
 * their schemas again each time cost most of a gateway's start and grew Ajv's cache.
 */
const compiledStrict = new Map<string, ValidateFunction>();
function compileStrict(schema: JsonSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiledStrict.get(key);
  if (validate === undefined) {
    validate = ajv.compile(strictSchema(schema));
    compiledStrict.set(key, validate);
  }
  return validate;
}

export interface InputValidator {
  /**
   * Validates a client-supplied body: output-only fields are dropped (ignored, not errors), then the
   * body must match the schema exactly (no coercion, no unknown fields). Returns the cleaned copy.
   */
  (input: unknown): JsonObject;
}

/**
 * The strict validator of `schema`, compiled on its first use: compiling every resource's schemas when
 * the services are built was most of a gateway's start-up time, and many are never used by a process.
 */
function lazyStrict(schema: JsonSchema): () => ValidateFunction {
  let validate: ValidateFunction | undefined;
  return () => (validate ??= compileStrict(schema));
}

export function compileInputValidator(schema: JsonSchema, outputOnlyPaths: readonly string[], where: string): InputValidator {
  const validator = lazyStrict(schema);
  const outputOnly = outputOnlyPaths.map((p) => p.split('.'));
  return (input: unknown) => {
    if (!isPlainObject(input as never)) throw invalidArgument(`${where} must be a JSON object`);
    assertNoNulInJson(input);
    const copy = structuredClone(input) as JsonObject;
    for (const path of outputOnly) deletePath(copy, path);
    const validate = validator();
    if (!validate(copy)) throw schemaError(validate.errors, where);
    return copy;
  };
}

/** Compiles a schema for query or small bodies (not resource bodies). */
export function compileValidator(schema: JsonSchema, where: string): (input: unknown) => void {
  const validator = lazyStrict(schema);
  return (input) => {
    assertNoNulInJson(input);
    const validate = validator();
    if (!validate(input)) throw schemaError(validate.errors, where);
  };
}

const validateEmptyBody = compileValidator({ type: 'object', properties: {} }, 'request body');

/** A request body that must be `{}` (or absent): INVALID_ARGUMENT for anything else. */
export function assertEmptyBody(body: unknown): void {
  validateEmptyBody(body ?? {});
}
