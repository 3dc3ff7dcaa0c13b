/**
 * AIP-157/161 field masks (`readMask`, `updateMask`), written in-house like the rest of the AIP layer.
 * Paths are comma-separated, snake_case or camelCase, normalised to dotted camelCase.
 */
import { invalidArgument } from '../errors/index.js';
import type { JsonObject, JsonValue } from '../contracts/json.js';
import { setOwn, snakeToCamel } from './values.js';

const SEGMENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_MASK_LENGTH = 8192;

/** The parts of a JSON Schema a mask path is checked against (`as const` resource schemas fit it). */
export interface MaskSchema {
  readonly type?: unknown;
  readonly properties?: { readonly [field: string]: unknown };
  readonly additionalProperties?: unknown;
  readonly items?: unknown;
}

function schemaNode(value: unknown): MaskSchema | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as MaskSchema) : undefined;
}

/** What one more path segment below `node` is: a declared field, a map key, or nothing (unknown). */
function step(node: MaskSchema | undefined, segment: string): { key: string; next: MaskSchema | undefined } | undefined {
  // Paths through repeated fields apply to every element.
  let current = node;
  while (current !== undefined && (current.type === 'array' || current.items !== undefined)) current = schemaNode(current.items);
  // Free-form values (no schema, or an object without declared fields): any key, as written.
  if (current === undefined) return { key: segment, next: undefined };
  if (current.properties !== undefined) {
    const field = snakeToCamel(segment);
    if (Object.hasOwn(current.properties, field)) return { key: field, next: schemaNode(current.properties[field]) };
  }
  const map = current.additionalProperties;
  if (map === true || schemaNode(map) !== undefined) return { key: segment, next: schemaNode(map) };
  if (current.properties === undefined && current.type === 'object' && map === undefined) return { key: segment, next: undefined };
  return undefined;
}

/**
 * Parses a field mask. Returns undefined for empty text or `*` (all fields), otherwise the distinct
 * dotted camelCase paths in order. Every path is checked against `schema` at every depth: declared
 * fields (snake_case or camelCase), map keys (kept as written), anything inside free-form objects.
 * Throws INVALID_ARGUMENT for malformed paths and unknown fields (naming the path); `parameter` names
 * the query parameter in the error.
 */
export function parseFieldMask(text: string | undefined, schema: object, parameter = 'readMask'): string[] | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === '*') return undefined;
  const fail = (message: string): never => {
    throw invalidArgument(`invalid ${parameter}: ${message}`, { reason: 'INVALID_FIELD_MASK', field: parameter });
  };
  if (trimmed.length > MAX_MASK_LENGTH) fail(`longer than ${MAX_MASK_LENGTH} characters`);
  const paths: string[] = [];
  for (const item of trimmed.split(',')) {
    const raw = item.trim();
    if (raw === '') fail('empty path (check the commas)');
    if (raw === '*') fail("'*' must be the whole mask");
    const segments = raw.split('.');
    if (!segments.every((segment) => SEGMENT.test(segment) && segment !== '__proto__')) fail(`invalid path ${JSON.stringify(raw)}`);
    const path: string[] = [];
    let node: MaskSchema | undefined = schemaNode(schema);
    for (const [depth, segment] of segments.entries()) {
      const found = step(node, segment);
      if (found === undefined) {
        fail(depth === 0 ? `unknown field ${JSON.stringify(segment)}` : `unknown field ${JSON.stringify(segments.slice(0, depth + 1).join('.'))}`);
      }
      path.push(found!.key);
      node = found!.next;
    }
    const joined = path.join('.');
    if (!paths.includes(joined)) paths.push(joined);
  }
  return paths;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value);
}

function own(object: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** A tree of masked paths: a leaf (`true`) keeps the whole value. */
type MaskTree = Map<string, MaskTree | true>;

function buildTree(paths: readonly string[]): MaskTree {
  const root: MaskTree = new Map();
  for (const path of paths) {
    const segments = path.split('.');
    let node = root;
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i] as string;
      const existing = node.get(segment);
      if (existing === true) break; // an ancestor is already kept whole
      if (i === segments.length - 1) {
        node.set(segment, true);
        break;
      }
      const child: MaskTree = existing ?? new Map();
      node.set(segment, child);
      node = child;
    }
  }
  return root;
}

function project(value: JsonValue, tree: MaskTree): JsonValue | undefined {
  if (Array.isArray(value)) return value.map((element) => project(element, tree) ?? null);
  if (!isObject(value)) return undefined;
  const result: JsonObject = {};
  for (const [key, sub] of tree) {
    const child = own(value, key);
    if (child === undefined) continue;
    if (sub === true) {
      setOwn(result, key, structuredClone(child));
      continue;
    }
    const projected = project(child, sub);
    if (projected !== undefined) setOwn(result, key, projected);
  }
  return result;
}

/**
 * Keeps only the masked paths of `data` (a nested path keeps that subset of its parent; through arrays
 * it applies to every element). `name` is always kept. Without paths, returns a copy of everything.
 */
export function applyReadMask(data: JsonObject, paths: string[] | undefined): JsonObject {
  // No mask: the data itself (callers treat answers as read-only; copying here costs every GET).
  if (paths === undefined) return data;
  const tree = buildTree(['name', ...paths]);
  return (project(data, tree) as JsonObject | undefined) ?? {};
}

/**
 * Applies a PATCH body. With paths: each masked path takes the patch's value (a path absent from the
 * patch is removed). Without paths: every top-level key present in the patch replaces the existing one.
 * Returns a new object; neither argument is modified.
 */
export function applyUpdateMask(existing: JsonObject, patch: JsonObject, paths: string[] | undefined): JsonObject {
  const result = structuredClone(existing);
  if (paths === undefined) {
    for (const key of Object.keys(patch)) setOwn(result, key, structuredClone(patch[key] as JsonValue));
    return result;
  }
  for (const path of paths) {
    const segments = path.split('.');
    let source: JsonValue | undefined = patch;
    for (const segment of segments) source = isObject(source) ? own(source, segment) : undefined;
    let target = result;
    const last = segments[segments.length - 1] as string;
    let reachable = true;
    for (const segment of segments.slice(0, -1)) {
      const next = own(target, segment);
      if (isObject(next)) {
        target = next;
        continue;
      }
      if (source === undefined) {
        reachable = false; // nothing to remove below a missing parent
        break;
      }
      const created: JsonObject = {};
      setOwn(target, segment, created);
      target = created;
    }
    if (!reachable) continue;
    if (source === undefined) delete target[last];
    else setOwn(target, last, structuredClone(source));
  }
  return result;
}
