/** Request bodies from flags, `--set path=value` and `--file`, and values read back by dotted path. */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { CliError, UsageError } from './errors.js';
import type { FieldFlag, FieldType } from './resource-spec.js';

export type JsonObject = { [key: string]: unknown };

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function getPath(value: unknown, path: string): unknown {
  let current = value;
  for (const segment of path.split('.')) {
    if (!isObject(current)) return undefined;
    current = current[segment];
  }
  return current;
}

const SEGMENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function setPath(target: JsonObject, path: string, value: unknown): void {
  const segments = path.split('.');
  if (!segments.every((s) => SEGMENT.test(s))) throw new UsageError(`"${path}" is not a field path (letters, digits and '_', separated by '.')`);
  let current = target;
  for (const segment of segments.slice(0, -1)) {
    const next = current[segment];
    if (!isObject(next)) current[segment] = {};
    current = current[segment] as JsonObject;
  }
  current[segments[segments.length - 1]!] = value;
}

/** The JSON value of a flag's text for its field type; a clear usage error otherwise. */
export function parseFieldValue(flag: string, type: FieldType, text: string): unknown {
  switch (type) {
    case 'string':
      return text;
    case 'int':
    case 'int64': {
      if (!/^-?\d+$/.test(text)) throw new UsageError(`--${flag} must be an integer, got "${text}"`);
      return type === 'int64' ? text : Number(text);
    }
    case 'number': {
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${flag} must be a number, got "${text}"`);
      return n;
    }
    case 'bool':
      if (text === 'true') return true;
      if (text === 'false') return false;
      throw new UsageError(`--${flag} must be true or false, got "${text}"`);
    case 'list':
      return text === '' ? [] : text.split(',').map((item) => item.trim());
    case 'json':
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new UsageError(`--${flag} must be JSON, got "${text}"`);
      }
  }
}

/** `path=value`: the value as JSON when it parses (numbers, booleans, objects), else as text. */
export function parseAssignment(text: string): { path: string; value: unknown } {
  const at = text.indexOf('=');
  if (at <= 0) throw new UsageError(`--set takes path=value, got "${text}"`);
  const raw = text.slice(at + 1);
  let value: unknown = raw;
  try {
    value = JSON.parse(raw) as unknown;
  } catch {}
  return { path: text.slice(0, at), value };
}

/** A JSON or YAML object from a file (`-` reads standard input). */
export async function readBodyFile(path: string, stdin: NodeJS.ReadableStream): Promise<JsonObject> {
  let text: string;
  try {
    text = path === '-' ? await readAll(stdin) : await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text); // YAML is a superset of JSON
  } catch (error) {
    throw new UsageError(`${path} is neither JSON nor YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (!isObject(parsed)) throw new UsageError(`${path} must hold an object`);
  return parsed;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

export interface BodyInput {
  file?: JsonObject;
  /** Option values by camelCase option name, as commander gives them. */
  options: Record<string, unknown>;
  fields: readonly FieldFlag[];
  sets: readonly string[];
}

/**
 * The body (file, then field flags with JSON-typed ones first, then `--set`) and the paths that were
 * given (the update mask: top-level keys of the file, the dotted paths of flags and `--set`).
 */
export function buildBody(input: BodyInput): { body: JsonObject; paths: string[] } {
  const body: JsonObject = structuredClone(input.file ?? {});
  const paths = new Set(Object.keys(body));
  const ordered = [...input.fields].sort((a, b) => Number(b.type === 'json') - Number(a.type === 'json'));
  for (const field of ordered) {
    const raw = input.options[camel(field.flag)];
    if (raw === undefined) continue;
    setPath(body, field.path, parseFieldValue(field.flag, field.type, String(raw)));
    paths.add(field.path);
  }
  for (const text of input.sets) {
    const { path, value } = parseAssignment(text);
    setPath(body, path, value);
    paths.add(path);
  }
  // A path inside another given path is already covered by it.
  const covered = [...paths].filter((p) => ![...paths].some((q) => p.startsWith(`${q}.`)));
  return { body, paths: covered };
}

export function camel(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** `accounts/a/models/m` → `m`; anything else unchanged. */
export function shortName(value: string): string {
  return value.startsWith('accounts/') ? value.slice(value.lastIndexOf('/') + 1) : value;
}
