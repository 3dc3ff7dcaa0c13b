/**
 * AIP-157/161 field masks (`readMask`, `updateMask`), written in-house like the rest of the AIP layer.
 * Paths are comma-separated, snake_case or camelCase, normalised to dotted camelCase.
 */
import { invalidArgument } from '../errors/index.js';
import type { JsonObject, JsonValue } from '../contracts/json.js';
import { setOwn, snakeToCamel } from './values.js';

const SEGMENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_MASK_LENGTH = 8192;

/**
 * Parses a field mask. Returns undefined for empty text or `*` (all fields), otherwise the distinct
 * dotted camelCase paths in order. Throws INVALID_ARGUMENT for malformed paths and unknown top-level
 * fields (naming the field); `parameter` names the query parameter in the error.
 */
export function parseFieldMask(
  text: string | undefined,
  knownTopLevelFields: readonly string[],
  parameter = 'readMask',
): string[] | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === '*') return undefined;
  const fail = (message: string): never => {
    throw invalidArgument(`invalid ${parameter}: ${message}`, { reason: 'INVALID_FIELD_MASK', field: parameter });
  };
  if (trimmed.length > MAX_MASK_LENGTH) fail(`longer than ${MAX_MASK_LENGTH} characters`);
  const known = new Set(knownTopLevelFields.map(snakeToCamel));
  const paths: string[] = [];
  for (const item of trimmed.split(',')) {
    const raw = item.trim();
    if (raw === '') fail('empty path (check the commas)');
    if (raw === '*') fail("'*' must be the whole mask");
    const segments = raw.split('.');
    if (!segments.every((segment) => SEGMENT.test(segment))) fail(`invalid path ${JSON.stringify(raw)}`);
    const path = segments.map(snakeToCamel);
    if (!known.has(path[0] as string)) fail(`unknown field ${JSON.stringify(segments[0])}`);
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
