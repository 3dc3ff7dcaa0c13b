/**
 * fast-check generators for requests: values shaped by an operation's JSON Schema (so requests reach
 * deep into validation and the services), mutated with hostile values (NUL, huge numbers and strings,
 * deep nesting, wrong types, unknown keys), and hostile query parameters and path segments.
 */
import fc from 'fast-check';
import type { Operation, QueryParam, Schema } from './operations.js';

/** Names the fixtures create, so generated ids often hit existing resources. */
export interface Fixtures {
  readonly account: string;
  /** Path parameter name → existing ids (`model_id` → `['m', 'addon']`). */
  readonly ids: Readonly<Record<string, readonly string[]>>;
  /** Full names of existing resources, used as reference values in bodies. */
  readonly names: readonly string[];
  /** Page tokens minted by other lists (other collections, other queries). */
  readonly pageTokens: readonly string[];
}

export interface FuzzRequest {
  readonly method: string;
  /** Path and query, already encoded. */
  readonly url: string;
  /** Raw request body text, when one is sent. */
  readonly body?: string;
  /** `admin` key, another account's key, a wrong key, or none. */
  readonly auth: 'admin' | 'other' | 'wrong' | 'none';
}

const NUL = '\u0000';
const hugeString = 'x'.repeat(200_000);

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i += 1) value = i % 2 === 0 ? { a: value } : [value];
  return value;
}

/** Values that have broken gateways: each is a plain JSON value. */
const hostileScalars: readonly unknown[] = [
  NUL, `a${NUL}b`, '\\u0000', '', ' ', 'x'.repeat(5000), '\uD800', '\u202E\uFEFF', '😀'.repeat(300),
  0, -0, -1, 1.5, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 1, -(2 ** 63), 1e308, -1e308, 5e-324,
  '9223372036854775808', '9999999999999999999', '-9223372036854775809', '9'.repeat(400), '1e400', 'NaN', 'Infinity',
  true, false, null, [], {}, [null], { '': '' },
  'accounts/other/models/m', 'accounts/acme/models/../../x', 'accounts/acme/models/missing', '../../etc/passwd',
  '2026-02-30T00:00:00Z', '9999-12-31T23:59:59Z', '-5s', '1e9s', 'READY', 'STATE_UNSPECIFIED',
];

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...hostileScalars) },
  { weight: 1, arbitrary: fc.constantFrom(nested(40), nested(64), nested(65), nested(3000)) },
  { weight: 1, arbitrary: fc.constant(hugeString) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'nope', `k${NUL}`, 'x'.repeat(300)), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }) },
);

function typesOf(schema: Schema): string[] {
  if (schema.type === undefined) return [];
  return typeof schema.type === 'string' ? [schema.type] : [...schema.type];
}

const stringSamples = ['x', 'Llama 3', 'llama', 'q_proj', 'GPUX_H100_80GB', 'accounts/acme/models/m', '30s', '2030-01-01T00:00:00Z'];

function stringFor(schema: Schema, fixtures: Fixtures): fc.Arbitrary<string> {
  if (schema.format === 'date-time') return fc.constantFrom('2030-01-01T00:00:00Z', '2020-01-01T00:00:00Z', '2030-13-01T00:00:00Z', 'yesterday');
  if (schema.format === 'int64' || schema.pattern?.includes('[0-9]{1,19}')) {
    return fc.oneof(fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String), fc.constantFrom('0', '8000000000', '9223372036854775807'));
  }
  if (schema.pattern?.endsWith('s$')) return fc.constantFrom('30s', '600s', '3600s', '0.5s', '-1s', '99999999999s');
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...stringSamples, ...fixtures.names) },
    { weight: 1, arbitrary: fc.string({ maxLength: schema.maxLength === undefined ? 30 : Math.min(schema.maxLength + 2, 80) }) },
  );
}

/** A value shaped by `schema` (types, enums, properties, maps, arrays), at most `depth` levels more. */
export function valueFor(schema: Schema | undefined, fixtures: Fixtures, depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined || depth > 5) return fc.jsonValue({ maxDepth: 1 });
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum !== undefined && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives !== undefined && alternatives.length > 0) return fc.oneof(...alternatives.map((s) => valueFor(s, fixtures, depth + 1)));
  const types = typesOf(schema);
  const type = types[0] ?? (schema.properties ? 'object' : schema.items ? 'array' : undefined);
  switch (type) {
    case 'string':
      return stringFor(schema, fixtures);
    case 'integer':
      return fc.integer({ min: Math.max(schema.minimum ?? -5, -1_000_000), max: Math.min(schema.maximum ?? 100, 1_000_000) });
    case 'number':
      return fc.double({ min: -1e6, max: 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(valueFor(schema.items, fixtures, depth + 1), { maxLength: 3 });
    case 'object': {
      const properties = schema.properties ?? {};
      const keys = Object.keys(properties);
      const record = keys.length === 0
        ? fc.constant({} as Record<string, unknown>)
        : fc.record(Object.fromEntries(keys.map((k) => [k, valueFor(properties[k], fixtures, depth + 1)])), {
          requiredKeys: depth === 0 ? [] : (schema.required ?? []).filter((k) => keys.includes(k)),
        });
      const extra = schema.additionalProperties;
      if (typeof extra === 'object') {
        return fc.tuple(record, fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), valueFor(extra, fixtures, depth + 1), { maxKeys: 2 }))
          .map(([a, b]) => ({ ...b, ...a }));
      }
      return record as fc.Arbitrary<unknown>;
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Replaces one value somewhere in `value` (or adds an unknown key) with a hostile one. */
function mutate(value: unknown): fc.Arbitrary<unknown> {
  return fc.tuple(hostileValue, fc.nat(), fc.boolean()).map(([hostile, at, addKey]) => {
    const copy = structuredClone(value);
    const containers: Array<Record<string, unknown> | unknown[]> = [];
    const walk = (node: unknown) => {
      if (node !== null && typeof node === 'object') {
        containers.push(node as Record<string, unknown> | unknown[]);
        for (const child of Object.values(node)) walk(child);
      }
    };
    walk(copy);
    if (containers.length === 0) return hostile;
    const target = containers[at % containers.length]!;
    if (Array.isArray(target)) {
      if (target.length === 0) target.push(hostile);
      else target[at % target.length] = hostile;
    } else {
      const keys = Object.keys(target);
      if (addKey || keys.length === 0) target[`unknown_${at % 7}`] = hostile;
      else target[keys[at % keys.length]!] = hostile;
    }
    return copy;
  });
}

const rawBodies = ['{', '[', '{"a":}', 'null', '"text"', '12', 'true', '{"a":1,"a":2}', '\u0000', `{"x":"${NUL}"}`, '{"__proto__":{"polluted":true}}',
  `{"n":${'9'.repeat(400)}}`, '{"n":1e400}', `${'['.repeat(5000)}${']'.repeat(5000)}`, '\uFEFF{}', '{"a":"\\ud800"}'];

function bodyFor(operation: Operation, fixtures: Fixtures): fc.Arbitrary<string | undefined> {
  const shaped = valueFor(operation.body, fixtures);
  return fc.oneof(
    { weight: 4, arbitrary: shaped.map((v) => JSON.stringify(v)) },
    { weight: 4, arbitrary: shaped.chain(mutate).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: hostileValue.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.constantFrom(...rawBodies) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

const filterSamples = [
  'state = READY', 'display_name = "x"', 'create_time > "2020-01-01T00:00:00Z"', 'NOT state = FAILED', 'a.b.c.d:*',
  `display_name = "${NUL}"`, 'display_name = "\\u0000"', '(((((((((((((((', 'state = ', '"', 'x'.repeat(3000), 'name:*',
  'base_model_details.parameter_count > 9999999999999999999999', 'state = READY OR '.repeat(200) + 'state = READY', '-1', 'min_replica_count > 1e999',
];
const maskSamples = ['name', '*', 'display_name,state', 'base_model_details.nope', 'baseModelDetails.modelType', 'nope', 'name.x',
  'autoscaling_policy.load_targets.any', `name${NUL}`, 'a,,b', '__proto__', 'labels.__proto__', 'x.'.repeat(2000) + 'x'];

function queryValue(param: QueryParam, fixtures: Fixtures): fc.Arbitrary<string> {
  const hostile = fc.constantFrom('', NUL, `x${NUL}`, '-1', '1.5', '1e3', '99999999999', '9'.repeat(40), 'true', 'maybe', '%', 'x'.repeat(4000));
  let typed: fc.Arbitrary<string>;
  if (param.type === 'integer') typed = fc.oneof(fc.integer({ min: -5, max: 300 }).map(String), fc.constantFrom('0', '1', '200', '201'));
  else if (param.type === 'boolean') typed = fc.constantFrom('true', 'false');
  else if (param.name === 'filter') typed = fc.constantFrom(...filterSamples);
  else if (param.name === 'readMask' || param.name === 'updateMask') typed = fc.constantFrom(...maskSamples);
  else if (param.name === 'orderBy') typed = fc.constantFrom('create_time desc', 'display_name', 'nope', 'name desc desc', `name${NUL}`);
  else if (param.name === 'pageToken') {
    typed = fc.oneof(fc.constantFrom('garbage', 'eyJ2IjoxLCJwIjpbXSwiYyI6IiJ9', 'A'.repeat(20_000)), fc.base64String({ maxLength: 60 }).map((s) => s.replace(/=/g, '')),
      ...(fixtures.pageTokens.length > 0 ? [fc.constantFrom(...fixtures.pageTokens)] : []));
  } else typed = fc.oneof(fc.constantFrom('x', 'new-id', 'UPPER', '-bad-', 'a'.repeat(80)), fc.string({ maxLength: 20 }));
  return fc.oneof({ weight: 3, arbitrary: typed }, { weight: 1, arbitrary: hostile });
}

function pathValue(name: string, fixtures: Fixtures): fc.Arbitrary<string> {
  if (name === 'account_id') return fc.oneof({ weight: 8, arbitrary: fc.constant(fixtures.account) }, { weight: 1, arbitrary: fc.constantFrom('other', 'BAD!', 'a'.repeat(70)) });
  const known = fixtures.ids[name] ?? [];
  return fc.oneof(
    { weight: 4, arbitrary: known.length > 0 ? fc.constantFrom(...known) : fc.constant('missing') },
    { weight: 1, arbitrary: fc.constantFrom('missing', 'UPPER', '-bad-', 'x'.repeat(200), `a${NUL}b`, '..', 'a:b', ' ', '%', '😀') },
  );
}

function encodeSegment(value: string): string {
  // Keep a few raw hostile bytes (a lone '%', '..') so the router sees them as a client would send them.
  return value === '%' || value === '..' ? value : encodeURIComponent(value);
}

/** One request for `operation`: path parameters, some query parameters, a body, and credentials. */
export function requestFor(operation: Operation, fixtures: Fixtures): fc.Arbitrary<FuzzRequest> {
  const params = fc.tuple(...operation.pathParams.map((name) => pathValue(name, fixtures)));
  const query = fc.subarray([...operation.query], { maxLength: Math.min(4, operation.query.length) }).chain((chosen) =>
    fc.tuple(...chosen.map((param) => queryValue(param, fixtures).map((value) => `${param.name}=${encodeURIComponent(value)}`))));
  const sendsBody = operation.method === 'POST' || operation.method === 'PATCH' || operation.method === 'PUT';
  return fc.record({
    params,
    query,
    body: sendsBody ? bodyFor(operation, fixtures) : fc.constant(undefined),
    auth: fc.constantFrom<FuzzRequest['auth']>('admin', 'admin', 'admin', 'admin', 'admin', 'admin', 'other', 'wrong', 'none'),
  }).map(({ params: values, query: pairs, body, auth }) => {
    let i = 0;
    const path = operation.path.replace(/\{[a-z_]+\}/g, () => encodeSegment(values[i++]!));
    const url = pairs.length > 0 ? `${path}?${pairs.join('&')}` : path;
    return { method: operation.method, url, auth, ...(body !== undefined ? { body } : {}) };
  });
}
