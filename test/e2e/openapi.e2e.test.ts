import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { compileValidator, type JsonSchema } from '@berth/core';
import { gatewayRoutes } from '@berth/plugin-transport-fastify';
import { startHarness, type Harness } from './harness.js';
import { inlineRefs, type OpenApiComponents } from './openapi-refs.js';

interface MediaType {
  schema?: { $ref?: string } & Record<string, unknown>;
  example?: unknown;
}
interface Operation {
  operationId: string;
  summary: string;
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { description: string; content?: Record<string, MediaType> }>;
}
type Document = OpenApiComponents & { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

/** Bodies sent or answered as raw bytes have an inline binary schema, not a component (the documented exception). */
const isBytes = (mediaType: string) => mediaType !== 'application/json' && mediaType !== 'multipart/form-data';

const operationsOf = (doc: Document) =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op })));

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.close());

describe('OpenAPI document, docs page and health endpoints', () => {
  it('serves an OpenAPI 3.1 document that a standard validator accepts', async () => {
    const response = await fetch(`${h.url}/openapi.json`);
    expect(response.status).toBe(200);
    const doc = (await response.json()) as { openapi: string; info: { version: string }; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('4.259.0');
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists every route the server registers', async () => {
    const doc = (await (await fetch(`${h.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const routes = gatewayRoutes(h.gateway);
    expect(routes.length).toBeGreaterThan(30);
    for (const route of routes) {
      // Signed URLs (dataset, model and training files) are served but handed out by answers, not documented.
      const documented = doc.paths[route.path]?.[route.method.toLowerCase()];
      if (route.signedUrl) expect(documented, `${route.method} ${route.path}`).toBeUndefined();
      else expect(documented, `${route.method} ${route.path}`).toBeDefined();
    }
    expect(routes.filter((route) => route.signedUrl).map((route) => `${route.method} ${route.path}`).sort()).toEqual([
      'GET /v1/accounts/{account_id}/datasets/{dataset_id}/files/{filename}',
      'GET /v1/accounts/{account_id}/models/{model_id}/files/{filename}',
      'GET /v1/accounts/{account_id}/reinforcementFineTuningJobs/{job_id}/files/{filename}',
      'PUT /v1/accounts/{account_id}/datasets/{dataset_id}/files/{filename}',
      'PUT /v1/accounts/{account_id}/models/{model_id}/files/{filename}',
      'PUT /v1/accounts/{account_id}/reinforcementFineTuningJobs/{job_id}/files/{filename}',
    ]);
    for (const path of [
      '/v1/accounts/{account_id}/models/{model_id}',
      '/v1/accounts/{account_id}/datasets',
      '/v1/accounts/{account_id}/users/{user_id}',
      '/v1/accounts/{account_id}/deploymentShapes/{deployment_shape_id}',
      '/v1/accounts/{account_id}/reinforcementFineTuningJobs/{reinforcement_fine_tuning_job_id}',
      '/v1/accounts/{account_id}/batchInferenceJobs/{batch_inference_job_id}',
      '/v1/accounts/{account_id}/deployments',
      '/v1/accounts/{account_id}/batchInferenceJobs',
      '/v1/accounts/{account_id}/deployments/{deployment_id}',
    ]) expect(doc.paths[path], path).toBeDefined();
  });

  it('serves an API reference page, /healthz and /readyz without credentials', async () => {
    const docs = await fetch(`${h.url}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toContain('text/html');
    const html = await docs.text();
    expect(html).toContain('id="swagger-ui"');
    expect(await (await fetch(`${h.url}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${h.url}/readyz`)).json()).toEqual({ status: 'ready' });
  });

  it('names every request and response body as a component, with one per resource kind', async () => {
    const doc = (await (await fetch(`${h.url}/openapi.json`)).json()) as Document;
    const schemas = doc.components.schemas;
    for (const name of [
      'Model', 'Dataset', 'Deployment', 'DeploymentShape', 'User', 'ApiKey', 'BatchInferenceJob', 'ReinforcementFineTuningJob', 'Evaluator',
      'DeployedModel', 'ListModelsResponse', 'ListDeploymentsResponse', 'ListApiKeysResponse', 'CreateModelRequest', 'CreateDatasetRequest',
      'Empty', 'ControlPlaneError', 'InferenceError', 'ImageError',
    ]) expect(schemas[name], name).toBeDefined();
    // A list's items are the resource's component, not a copy of it.
    expect(schemas.ListModelsResponse).toMatchObject({ properties: { models: { items: { $ref: '#/components/schemas/Model' } } } });
    const operations = operationsOf(doc);
    expect(operations.length).toBeGreaterThan(50);
    let bodies = 0;
    for (const { where, op } of operations) {
      const contents = [...Object.entries(op.requestBody?.content ?? {}), ...Object.values(op.responses).flatMap((r) => Object.entries(r.content ?? {}))];
      for (const [mediaType, content] of contents) {
        if (isBytes(mediaType)) continue;
        const ref = content.schema?.$ref;
        expect(ref, `${where} ${mediaType}`).toMatch(/^#\/components\/schemas\/[A-Z][A-Za-z0-9]*$/);
        expect(schemas[ref!.split('/').pop()!], `${where} → ${ref}`).toBeDefined();
        bodies += 1;
      }
      // Summaries are plain text (descriptions are Markdown): no backticks shown as they are.
      expect(op.summary, where).not.toContain('`');
    }
    expect(bodies).toBeGreaterThan(operations.length * 3);
    // The resource's own operations share its component; a resource's request body marks output-only fields.
    expect(doc.paths['/v1/accounts/{account_id}/deployments/{deployment_id}:undelete']?.post?.responses['200']?.content?.['application/json']?.schema?.$ref)
      .toBe('#/components/schemas/Deployment');
    expect(schemas.Model).toMatchObject({ properties: { name: { readOnly: true }, createTime: { readOnly: true } } });
    expect(doc.paths['/inference/v1/chat/completions']?.post?.requestBody?.content['application/json']?.schema?.$ref).toBe('#/components/schemas/CreateChatCompletionRequest');
    expect(doc.paths['/inference/v1/responses/{response_id}']?.get?.responses['200']?.content?.['application/json']?.schema?.$ref).toBe('#/components/schemas/Response');
  });

  it("lists each operation's status codes with their bodies, and examples that match the schemas", async () => {
    const doc = (await (await fetch(`${h.url}/openapi.json`)).json()) as Document;
    for (const { where, op } of operationsOf(doc)) {
      const statuses = Object.keys(op.responses);
      expect(statuses[0], where).toBe('200');
      expect(statuses.length, where).toBeGreaterThanOrEqual(4);
      expect(statuses, where).toEqual(expect.arrayContaining(['400', '401', '403']));
      const checks: Array<[string, MediaType]> = [
        ...Object.entries(op.requestBody?.content ?? {}).map(([type, content]): [string, MediaType] => [`request ${type}`, content]),
        ...Object.entries(op.responses).flatMap(([status, response]) =>
          Object.entries(response.content ?? {}).filter(([type]) => !isBytes(type)).map(([type, content]): [string, MediaType] => [`${status} ${type}`, content])),
      ];
      for (const [what, content] of checks) {
        expect(content.example, `${where} ${what}`).toBeDefined();
        const check = compileValidator(inlineRefs(content.schema, doc) as JsonSchema, `${where} ${what} example`);
        expect(() => check(content.example), `${where} ${what}`).not.toThrow();
      }
    }
    const notFound = doc.paths['/v1/accounts/{account_id}/models/{model_id}']?.get?.responses['404'];
    expect(notFound?.content?.['application/json']).toMatchObject({ schema: { $ref: '#/components/schemas/ControlPlaneError' }, example: { code: 5, details: [] } });
  });

  it('serves /docs as Swagger UI from the package: same-origin assets only, cached for long, with a CSP', async () => {
    const page = await fetch(`${h.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const policy = page.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self'");
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).toContain('data-openapi-url="/openapi.json"');
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(urls.every((url) => url.startsWith('/') && !url.startsWith('//'))).toBe(true);
    const assets = urls.filter((url) => url.startsWith('/docs/assets/'));
    expect(assets.length).toBe(4);
    const expected: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.png': 'image/png' };
    for (const asset of assets) {
      expect(asset, asset).toMatch(/^\/docs\/assets\/[0-9][^/]*\/[a-z0-9.-]+$/);
      const response = await fetch(`${h.url}${asset}`);
      expect(response.status, asset).toBe(200);
      expect(response.headers.get('content-type'), asset).toBe(expected[asset.slice(asset.lastIndexOf('.'))]);
      expect(response.headers.get('cache-control'), asset).toContain('immutable');
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect(bytes.length, asset).toBeGreaterThan(100);
      if (asset.endsWith('swagger-ui-bundle.js')) expect(Number(response.headers.get('content-length'))).toBe(bytes.length);
    }
    const script = await (await fetch(`${h.url}${assets.find((a) => a.endsWith('berth-docs.js'))}`)).text();
    expect(script).toContain('validatorUrl: null');
    // Only the listed files, and only under the current version.
    const base = assets[0]!.slice(0, assets[0]!.lastIndexOf('/'));
    for (const other of [`${base}/package.json`, `${base}/..%2Fpackage.json`, '/docs/assets/0.0.0/swagger-ui.css']) {
      expect((await fetch(`${h.url}${other}`)).status, other).toBe(404);
    }
  });
});

