/**
 * The operations of a running gateway, read from its `/openapi.json`: every documented route is fuzzed,
 * so a new route is covered without touching the suite.
 */
import { inlineRefs, type OpenApiComponents } from '../e2e/openapi-refs.js';

/** The parts of a JSON Schema the generators read. */
export interface Schema {
  readonly type?: string | readonly string[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | Schema;
  readonly items?: Schema;
  readonly anyOf?: readonly Schema[];
  readonly oneOf?: readonly Schema[];
  readonly format?: string;
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly maxLength?: number;
}

export interface QueryParam {
  readonly name: string;
  readonly type: string;
}

export type Surface = 'control' | 'inference' | 'image';

export interface Operation {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  /** OpenAPI path: `/v1/accounts/{account_id}/models/{model_id}`. */
  readonly path: string;
  readonly pathParams: readonly string[];
  readonly query: readonly QueryParam[];
  readonly body?: Schema;
  readonly surface: Surface;
}

interface OpenApiParameter {
  name: string;
  in: string;
  schema?: { type?: string };
}

interface OpenApiOperation {
  parameters?: OpenApiParameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

export interface OpenApiDocument extends OpenApiComponents {
  paths: Record<string, Record<string, OpenApiOperation>>;
}

/** Which error format a path answers in (mirrors the transport: inference, image workflows, control plane). */
export function surfaceOf(path: string): Surface {
  if (path.startsWith('/inference/v1/workflows/')) return 'image';
  if (path.startsWith('/inference/')) return 'inference';
  return 'control';
}

const methods = new Set(['get', 'post', 'patch', 'delete', 'put']);

export function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!methods.has(method)) continue;
      const parameters = operation.parameters ?? [];
      // Bodies are named components: the generators read them inlined.
      const body = inlineRefs(operation.requestBody?.content?.['application/json']?.schema, doc);
      operations.push({
        method: method.toUpperCase() as Operation['method'],
        path,
        pathParams: [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!),
        query: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, type: p.schema?.type ?? 'string' })),
        ...(body ? { body } : {}),
        surface: surfaceOf(path),
      });
    }
  }
  return operations;
}
