import type { JsonObject, JsonValue } from '../ports/json.js';

/** snake_case → camelCase for one path segment (`create_time` → `createTime`). */
export function camelCaseSegment(segment: string): string {
  return segment.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function getPath(data: JsonObject, path: readonly string[]): JsonValue | undefined {
  let current: JsonValue | undefined = data;
  for (const segment of path) {
    if (!isPlainObject(current)) return undefined;
    current = current[segment];
  }
  return current;
}

export function deletePath(data: JsonObject, path: readonly string[]): void {
  let current: JsonValue | undefined = data;
  for (let i = 0; i < path.length - 1; i += 1) {
    if (!isPlainObject(current)) return;
    current = current[path[i]!];
  }
  if (isPlainObject(current)) delete current[path[path.length - 1]!];
}

export function setPath(data: JsonObject, path: readonly string[], value: JsonValue): void {
  let current: JsonObject = data;
  for (let i = 0; i < path.length - 1; i += 1) {
    const next: JsonValue | undefined = current[path[i]!];
    if (!isPlainObject(next)) {
      const created: JsonObject = {};
      current[path[i]!] = created;
      current = created;
    } else current = next;
  }
  current[path[path.length - 1]!] = value;
}
